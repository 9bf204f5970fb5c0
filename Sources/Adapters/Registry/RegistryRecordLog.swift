package import DeviceRegistry
package import Essentials
package import Observability
import PipelineMetrics
package import PushCore
import Synchronization

/// The log of the registry records ignored or trimmed: every one is counted by the tables
/// (`push_registry_ignored_total`), and a sample is logged, the first of each topic, partition and reason per
/// interval (`LogRateLimiter`), with how many like it were left out since the last line. A producer that does not
/// partition by client makes every record of a partition foreign: one line a minute, not one a record.
package final class RegistryRecordLog: Sendable {
    private let logger: Logger
    private let clock: any WallClock
    private let limiter: Mutex<LogRateLimiter>

    /// Logs to `logger`, one line per topic, partition and reason per `interval` of `clock`.
    package init(logger: Logger, interval: Duration = .seconds(60), clock: any WallClock = SystemWallClock()) {
        self.logger = logger
        self.clock = clock
        limiter = Mutex(LogRateLimiter(intervalMillis: interval.wholeMilliseconds))
    }

    /// Logs the sample of `ignored`, records of the topic named `name`, with where each was read and why: never its
    /// value, which may hold a token.
    package func log(_ ignored: [(record: RegistryRecord, error: RegistryRecordError)], topic name: String) {
        guard !ignored.isEmpty else { return }
        let nowMillis = clock.nowMillis()
        for (record, error) in ignored {
            let key = "\(name)/\(record.partition.map(String.init) ?? "-")/\(error.reason.rawValue)"
            guard case .log(let suppressed) = limiter.withLock({ $0.admit(key, nowMillis: nowMillis) }) else {
                continue
            }
            var metadata: Logger.Metadata = [
                "kafka.topic": .string(name), "registry.reason": .string(error.reason.rawValue),
                "error": .string(error.message),
            ]
            if let partition = record.partition { metadata["kafka.partition"] = .init(Int(partition)) }
            if let offset = record.offset { metadata["kafka.offset"] = .init(Int(offset)) }
            if suppressed > 0 { metadata["log.suppressed"] = .init(suppressed) }
            let trimmed = error.reason == .tooManyMutedRooms
            logger.warning(trimmed ? "registry record trimmed" : "registry record ignored", metadata: metadata)
        }
    }
}
