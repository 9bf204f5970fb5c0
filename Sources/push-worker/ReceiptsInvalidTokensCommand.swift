import CLI
import Configuration
import Essentials
import Foundation
import KafkaTypes
import PushCore
import PushPipeline
import ReceiptAnalytics
import TopicWindow

/// `push-worker receipts invalid-tokens`: the tokens providers called dead, for their owner to delete.
enum ReceiptsInvalidTokensCommand {
    static let subcommand = Subcommand(
        name: "receipts invalid-tokens",
        summary: "Lists the device tokens providers called dead (from the invalid-token topic), as CSV or JSON.",
        synopsis: "[--topic T] [--since TIME] [--format csv|json] [--config FILE]",
        discussion: """
            Reads PUSH_INVALID_TOKENS_TOPIC (default push.invalid-tokens) or --topic from the beginning to its end
            when the command starts, by explicit assignment (no consumer group, nothing committed), as a table:
            the newest record of each key (platform:tokenHash) counts, and a record with an empty value (a
            tombstone) deletes its token. --since keeps the tokens invalid since TIME (RFC 3339) or later.
            The output holds raw tokens: it is for the team that owns them. Exit codes: 0 done, 2 usage,
            3 configuration, 1 Kafka failure.
            """,
        options: [
            .value(
                "--topic", "T", "The invalid-token topic (default PUSH_INVALID_TOKENS_TOPIC, else push.invalid-tokens)."
            ),
            .value("--since", "TIME", "Only tokens invalid since TIME (RFC 3339) or later."),
            .value("--format", "FORMAT", "csv (default) or json, on stdout."),
            .value("--config", "FILE", "Read NAME=value settings from FILE; the environment overrides them."),
        ],
        run: { arguments in await run(arguments, environment: ProcessInfo.processInfo.environment) }
    )

    static let columns = ["platform", "token", "tokenHash", "userId", "app", "reason", "invalidSince", "messageId"]

    static func run(_ arguments: ParsedArguments, environment: [String: String]) async -> Int32 {
        var sinceMillis: Int64?
        if let text = arguments.value("--since") {
            guard let date = RFC3339.parse(text),
                let millis = Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded())
            else { return ToolFailure.usage(UsageError("option '--since': '\(text)' is not an RFC 3339 time")) }
            sinceMillis = millis
        }
        let format = arguments.value("--format") ?? "csv"
        guard format == "csv" || format == "json" else {
            return ToolFailure.usage(UsageError("option '--format' takes csv or json"))
        }
        let settings: ReceiptsConfiguration
        do {
            settings = try ReceiptsConfiguration.load(environment: environment, configFile: arguments.value("--config"))
        } catch {
            return ToolFailure.configuration(error)
        }
        let topic =
            arguments.value("--topic") ?? settings.invalidTokensTopic
        var table: [String: InvalidTokenRecord] = [:]
        do {
            try await TopicWindowReader.read(topic, configuration: settings.kafka) { records in
                for record in records {
                    guard let key = record.key.map({ String(decoding: $0, as: UTF8.self) }) else { continue }
                    table[key] = InvalidTokenRecord(json: record.value)
                }
            }
        } catch {
            return ToolFailure.runtime("reading \(topic)", error)
        }
        let tokens = table.values.filter { $0.invalidSinceMillis >= (sinceMillis ?? Int64.min) }.sorted {
            ($0.invalidSinceMillis, $0.key) < ($1.invalidSinceMillis, $1.key)
        }
        StandardStreams.writeOut(format == "json" ? json(tokens) : csv(tokens))
        return 0
    }

    static func csv(_ tokens: [InvalidTokenRecord]) -> String {
        CSVWriter.document(
            header: columns,
            rows: tokens.map { token in
                [
                    token.platform, token.token, token.tokenHash, token.userId, token.app ?? "", token.reason,
                    RFC3339.format(epochMillis: token.invalidSinceMillis), token.messageId,
                ]
            })
    }

    static func json(_ tokens: [InvalidTokenRecord]) -> String {
        "[" + tokens.map { String(decoding: $0.json(), as: UTF8.self) }.joined(separator: ",\n") + "]"
    }
}
