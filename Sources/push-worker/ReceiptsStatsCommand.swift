import CLI
import Configuration
import Foundation
import KafkaTypes
import Observability
import PushPipeline
import ReceiptAnalytics
import TopicWindow

/// `push-worker receipts stats`: delivery statistics over a window of the receipts topic.
enum ReceiptsStatsCommand {
    static let subcommand = Subcommand(
        name: "receipts stats",
        summary: "Delivery statistics over a window of the receipts topic (table, JSON, CSV, HTML report).",
        synopsis: """
            [--topic T] [--from POS] [--to POS] [--partitions LIST] [--run-id ID | --no-replays] \
            [--count-copies] [--by LIST] [--format table|json|csv] [--html FILE] [--config FILE]
            """,
        discussion: """
            Reads PUSH_RECEIPTS_TOPIC (default push.receipts) or --topic by explicit assignment (never a consumer
            group, nothing committed) from --from (default beginning) up to --to (default end: the high
            watermark when the command starts; exclusive for offsets), in one streaming pass with bounded
            memory. POS is beginning, end, an offset for every partition (1200), offsets per partition
            (0:1200,3:77) or an RFC 3339 time. Every receipt in the window counts, replays included, unless
            --run-id or --no-replays filters. Each receiptId counts once: a copy that at-least-once delivery
            wrote again (after a crash or a rebalance) is dropped and counted under copies, exactly up to
            \(ReceiptStatistics.defaultDistinctLimit) distinct receipt ids; beyond, a copy read more than half that
            many ids after its first counts again (the output says so). Receipts without receiptId (older ones)
            count every time. --count-copies counts every record. Brokers and security settings come from KAFKA_*
            as for `run`.
            --by chooses the breakdown (platform,type,status,worker; default platform,status), which is also
            what --format csv prints. Exit codes: 0 done, 2 usage, 3 configuration, 1 Kafka failure.
            """,
        options: [
            .value("--topic", "T", "The receipts topic (default PUSH_RECEIPTS_TOPIC, else push.receipts)."),
            .value("--from", "POS", "Where the window starts (default beginning)."),
            .value("--to", "POS", "Where the window ends, exclusive (default end)."),
            .value("--partitions", "LIST", "Only these partitions (comma-separated numbers)."),
            .value("--run-id", "ID", "Only receipts of this replay run."),
            .switch("--no-replays", "Leave out every receipt written by a replay."),
            .switch("--count-copies", "Count every copy of a receipt, not each receiptId once."),
            .value("--by", "LIST", "Breakdown fields: platform,type,status,worker (default platform,status)."),
            .value("--format", "FORMAT", "table (default), json or csv, on stdout."),
            .value("--html", "FILE", "Also write a self-contained HTML report to FILE."),
            .value("--config", "FILE", "Read NAME=value settings from FILE; the environment overrides them."),
        ],
        run: { arguments in await run(arguments, environment: ProcessInfo.processInfo.environment) }
    )

    enum Format: String {
        case table, json, csv
    }

    static func run(_ arguments: ParsedArguments, environment: [String: String]) async -> Int32 {
        let request: WindowRequest
        let dimensions: [BreakdownDimension]
        let format: Format
        let filter: ReceiptFilter
        do throws(UsageError) {
            request = try WindowRequest(arguments)
            switch BreakdownDimension.parseList(arguments.value("--by") ?? "platform,status") {
            case .success(let parsed): dimensions = parsed
            case .failure(let error): throw UsageError("option '--by': unknown field '\(error.name)'")
            }
            guard let parsed = Format(rawValue: arguments.value("--format") ?? "table") else {
                throw UsageError("option '--format' takes table, json or csv")
            }
            format = parsed
            filter = try receiptFilter(arguments)
        } catch {
            return ToolFailure.usage(error)
        }
        let settings: ReceiptsConfiguration
        do {
            settings = try ReceiptsConfiguration.load(environment: environment, configFile: arguments.value("--config"))
        } catch {
            return ToolFailure.configuration(error)
        }
        let topic = arguments.value("--topic") ?? settings.receiptsTopic
        var statistics = ReceiptStatistics(
            dimensions: dimensions, filter: filter, countsCopies: arguments.isSet("--count-copies"))
        do {
            try await TopicWindowReader.read(
                topic, configuration: settings.kafka, from: request.from, to: request.to,
                partitions: request.partitions
            ) { records in
                for record in records {
                    if let receipt = ReceiptFacts(
                        json: record.value, recordTimestampMillis: record.timestampMilliseconds)
                    {
                        statistics.add(receipt)
                    } else {
                        statistics.addUnreadable()
                    }
                }
            }
        } catch {
            return ToolFailure.runtime("reading \(topic)", error)
        }
        switch format {
        case .table: StandardStreams.writeOut(StatisticsTable.render(statistics))
        case .json: StandardStreams.writeOut(StatisticsJSON.render(statistics))
        case .csv: StandardStreams.writeOut(StatisticsCSV.render(statistics))
        }
        if let path = arguments.value("--html") {
            let html = StatisticsHTML.render(statistics, title: "push-worker receipts: \(topic)")
            guard FileManager.default.createFile(atPath: path, contents: Data(html.utf8)) else {
                return ToolFailure.runtime("writing the HTML report", "cannot write \(path)")
            }
        }
        return 0
    }

    private static func receiptFilter(_ arguments: ParsedArguments) throws(UsageError) -> ReceiptFilter {
        switch (arguments.value("--run-id"), arguments.isSet("--no-replays")) {
        case (let id?, false): .replayRun(id)
        case (nil, true): .noReplays
        case (nil, false): .all
        case (_?, true): throw UsageError("--run-id and --no-replays exclude each other")
        }
    }
}
