import CLI
import Essentials
import Foundation
import PushCore
import PushPipeline
import Replay

/// `push-worker replay`: backfill a topic range, or re-drive the dead-letter topic, without double pushes.
enum ReplayCommand {
    static let subcommand = Subcommand(
        name: "replay",
        summary: "Sends a range of a topic again (backfill, re-drive dead letters), never touching the live group.",
        synopsis: """
            --topic TOPIC [--from POS] [--to POS] [--partitions LIST] [--run-id ID] [--rate N] \
            [--max-age DURATION] [--skip-delivered] [--dry-run] [--format text|json] [--config FILE]
            """,
        discussion: """
            Same configuration as `run` (environment, --config): brokers, providers, credentials, rules, output
            topics. TOPIC is read by explicit assignment from --from (default beginning) up to --to (default end:
            the high watermark when the command starts; exclusive for offsets); the live consumer group and its
            offsets are never touched, so a live `run` keeps working. POS is beginning, end, an offset for every
            partition (1200), offsets per partition (0:1200,3:77) or an RFC 3339 time (read from the beginning
            and filtered where the broker cannot look times up). TOPIC may be an input topic, the dead-letter
            topic (each record is the event narrowed to its failed devices; attempts start again; records that
            are not events are counted and left alone) or a retry tier.
            Every receipt carries --run-id (default: generated, printed at the start) as replayRunId, every
            retry and dead-letter record an x-replay-run-id header. --rate caps device sends per second, evenly
            spaced. --max-age (90s, 30m, 6h, 2d) expires events created longer ago. --skip-delivered reads the
            receipts topic first (from --from TIME less 1 h, else from its beginning) and skips sends it shows
            delivered (reason already_delivered) or to a dead token (reason invalid_token). --dry-run plans
            everything and sends and writes nothing (`delivered` then counts sends that would be made).
            Progress goes to stderr (a live line on a terminal, else a line every 5 s); the summary to stdout.
            SIGINT/SIGTERM finish or hand off what is in flight and print where each partition stopped and the
            --from that resumes. Exit codes: 0 done, 2 usage, 3 configuration, 1 Kafka or provider failure,
            130 stopped by a signal before the end.
            """,
        options: [
            .value("--topic", "TOPIC", "The topic to replay (required)."),
            .value("--from", "POS", "Where to start (default beginning)."),
            .value("--to", "POS", "Where to stop, exclusive (default end)."),
            .value("--partitions", "LIST", "Only these partitions (comma-separated numbers)."),
            .value("--run-id", "ID", "The run's id in receipts and headers (default: generated)."),
            .value("--rate", "N", "At most N device sends per second."),
            .value("--max-age", "DURATION", "Do not send events created longer ago (90s, 30m, 6h, 2d)."),
            .switch("--skip-delivered", "Skip sends the receipts topic already shows delivered."),
            .switch("--dry-run", "Plan everything; send nothing and write nothing to Kafka."),
            .value("--format", "FORMAT", "The summary as text (default) or json."),
            .value("--config", "FILE", "Read NAME=value settings from FILE; the environment overrides them."),
        ],
        run: { arguments in
            let options: ReplayOptions
            do throws(UsageError) {
                options = try replayOptions(arguments)
            } catch {
                return ToolFailure.usage(error)
            }
            return await ReplayService.run(
                environment: ProcessInfo.processInfo.environment, configFile: arguments.value("--config"),
                options: options)
        }
    )

    static func replayOptions(_ arguments: ParsedArguments) throws(UsageError) -> ReplayOptions {
        let topic = try arguments.required("--topic")
        let window = try WindowRequest(arguments)
        let nowMillis = Int64(Date().timeIntervalSince1970 * 1000)
        let runId = arguments.value("--run-id") ?? ReplayOptions.generatedRunId(nowMillis: nowMillis)
        var options = ReplayOptions(topic: topic, runId: runId)
        guard ReplayRunID.isValid(options.runId) else {
            throw UsageError(
                "option '--run-id' needs 1 to \(ReplayRunID.maximumBytes) bytes without control characters")
        }
        options.from = window.from
        options.to = window.to
        options.partitions = window.partitions
        if arguments.value("--rate") != nil {
            options.sendsPerSecond = try arguments.integer("--rate", default: 0, in: 1...1_000_000)
        }
        if let text = arguments.value("--max-age") {
            guard let age = AgeLimit.parse(text) else {
                throw UsageError("option '--max-age': '\(text)' is not a duration like 90s, 30m, 6h or 2d")
            }
            options.maxAge = age
        }
        options.skipDelivered = arguments.isSet("--skip-delivered")
        options.dryRun = arguments.isSet("--dry-run")
        switch arguments.value("--format") ?? "text" {
        case "text": options.json = false
        case "json": options.json = true
        default: throw UsageError("option '--format' takes text or json")
        }
        return options
    }
}
