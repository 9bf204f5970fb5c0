import Configuration
import Essentials
import Kafka
import Observability
import PushPipeline

/// The worker's probes. Liveness (`/healthz`, a failure restarts the pod): the poll loop and the HTTP/2 event loop
/// keep turning. Readiness (`/readyz`: "send me work"; a failure only marks the pod unready, which rollouts and
/// the PodDisruptionBudget count): the pipeline runs, its loops turn, the consumer is a settled member of its group,
/// a broker is reachable, the producer is not backing off or failed, and the tables it reads have caught up with
/// their topics. An open provider breaker only warns: it is the provider's outage, every pod sees it alike, and an
/// unready fleet would stall node drains and rollouts without sending anything more. Each check is a pure function
/// of what it reads, tested alone.
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

    /// `providers.breakers`: warns naming the providers whose breaker is open (consumption of their work is
    /// paused) and counting the push-service origins whose breaker is open (their sends go to the retry topic);
    /// never fails.
    static func breakers(open: [PushProvider], openOrigins: Int = 0) -> HealthCheckResult {
        var parts = open.isEmpty ? [] : ["open: " + open.map(\.rawValue).joined(separator: ",")]
        if openOrigins > 0 { parts.append("webpush origins open: \(openOrigins)") }
        return parts.isEmpty ? .pass("all closed") : .warn(parts.joined(separator: "; "))
    }

    /// `providers.configured`: which providers the worker sends to, and which it was started without and why
    /// (`AbsentProviders`); never fails, as the worker refuses to start without any.
    static func providers(configured: [PushProvider], absent: [AbsentProvider]) -> HealthCheckResult {
        var detail = configured.map(\.rawValue).joined(separator: ",")
        if !absent.isEmpty { detail += "; left out: " + absent.map(\.description).joined(separator: "; ") }
        if !configured.contains(.webpush), !absent.contains(where: { $0.provider == .webpush }) {
            detail += "; " + webPushUnset
        }
        return .pass(detail)
    }

    /// What the worker says once at start and in `/readyz` when the default app has no VAPID key.
    static let webPushUnset = "webpush: no VAPID key (WEBPUSH_VAPID_KEY_FILE), web devices are skipped"

    /// `tables.<name>`: a table read from a compacted topic holds what its topic held at the start. Fails while it
    /// is still loading within the start's wait for it; past that wait (the pipeline then runs anyway) it warns.
    static func table(loaded: Bool, entries: Int, pastStartWait: Bool) -> HealthCheckResult {
        if loaded { return .pass("\(entries) entries, caught up") }
        let detail = "loading, \(entries) entries so far"
        return pastStartWait ? .warn(detail) : .fail(detail)
    }
}
