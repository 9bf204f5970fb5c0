package import DeviceRegistry
package import Essentials
package import Observability
import PipelineMetrics
package import PushCore

/// The log of the registry records ignored or trimmed: every one is counted by the tables
/// (`push_registry_ignored_total`), and a sample is logged, the first of each topic, partition and reason per
/// interval (`RateLimitedLog`), with how many like it were left out since the last line. A producer that does not
/// partition by client makes every record of a partition foreign: one line a minute, not one a record.
package final class RegistryRecordLog: Sendable {
    private let log: RateLimitedLog

    /// Logs to `logger`, one line per topic, partition and reason per `interval` of `clock`.
    package init(logger: Logger, interval: Duration = .seconds(60), clock: any WallClock = SystemWallClock()) {
        log = RateLimitedLog(logger: logger, interval: interval, clock: clock)
    }

    /// Logs the sample of `ignored`, records of the topic named `name`, with where each was read and why: never its
    /// value, which may hold a token.
    package func log(_ ignored: [(record: RegistryRecord, error: RegistryRecordError)], topic name: String) {
        for (record, error) in ignored {
            var metadata: Logger.Metadata = [
                "kafka.topic": .string(name), "registry.reason": .string(error.reason.rawValue),
                "error": .string(error.message),
            ]
            if let partition = record.partition { metadata["kafka.partition"] = .init(Int(partition)) }
            if let offset = record.offset { metadata["kafka.offset"] = .init(Int(offset)) }
            let trimmed = error.reason == .tooManyMutedRooms
            log.warning(
                key: "\(name)/\(record.partition.map(String.init) ?? "-")/\(error.reason.rawValue)",
                trimmed ? "registry record trimmed" : "registry record ignored", metadata: metadata)
        }
    }
}
