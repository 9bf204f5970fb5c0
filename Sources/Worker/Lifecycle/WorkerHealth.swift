import Essentials
import Kafka
import Observability
import PushPipeline

/// The worker's probes. Liveness (`/healthz`, a failure restarts the pod): the poll loop and the HTTP/2 event loop
/// keep turning. Readiness (`/readyz`, a failure only takes the pod out of rotation and tells the operator): the
/// pipeline runs, the consumer is a settled member of its group, a broker is reachable, the producer is not backing
/// off or failed, and no provider's breaker is open. Each check is a pure function of what it reads, tested alone.
enum WorkerHealth {
    /// The longest the HTTP/2 event loop may go without a turn (it turns at least once a second).
    static let eventLoopLimit = Duration.seconds(30)

    /// `poll_loop`: the last poll returned within `limit` (max.poll.interval.ms; the watchdog exits beyond it).
    static func pollLoop(lastPollMicros: Int64, nowMicros: Int64, limit: Duration) -> HealthCheckResult {
        let agoMillis = (nowMicros - lastPollMicros) / 1000
        let detail = "last poll \(agoMillis) ms ago"
        return Watchdog.isStalled(lastPollMicros: lastPollMicros, nowMicros: nowMicros, limit: limit)
            ? .fail(detail + ", limit \(limit.wholeMilliseconds) ms") : .pass(detail)
    }

    /// `event_loop`: the HTTP/2 event loop started a turn within `eventLoopLimit`.
    static func eventLoop(sinceLastTurn: Duration) -> HealthCheckResult {
        let detail = "last turn \(sinceLastTurn.wholeMilliseconds) ms ago"
        return sinceLastTurn > eventLoopLimit ? .fail(detail) : .pass(detail)
    }

    /// `kafka.group`: the coordinator is known and no join or sync is in progress.
    static func group(_ health: ConsumerHealth?) -> HealthCheckResult {
        guard let health else { return .fail("no statistics yet") }
        let detail = "state \(health.groupState ?? "none"), join state \(health.joinState ?? "none")"
        return health.hasJoinedGroup ? .pass(detail) : .fail(detail)
    }

    /// `kafka.brokers`: at least one broker connection is up.
    static func brokers(_ health: ConsumerHealth?) -> HealthCheckResult {
        guard let health else { return .fail("no statistics yet") }
        let detail = "\(health.brokersUp) up"
        return health.brokersUp > 0 ? .pass(detail) : .fail(detail)
    }

    /// `providers.breakers`: no provider's breaker is open (an open one pauses consumption).
    static func breakers(open: [PushProvider]) -> HealthCheckResult {
        open.isEmpty ? .pass("all closed") : .fail("open: " + open.map(\.rawValue).joined(separator: ","))
    }
}
