public import Essentials
import KafkaTypes
public import Observability
import PushCore
public import PushPipeline
import Synchronization

/// The observer port over the logger and the metrics registry. It keeps no copy of the pipeline's state: the gauges
/// of that state are read from the pipeline's `PipelineSnapshot` at each scrape (`PushMetrics.followPipeline`).
///
/// Failures are logged with why: every failed send, retry hand-off, dead letter and breaker change names its
/// reason, the provider's HTTP status, and the message, room and token fingerprint (`SendContext`). Each kind of
/// failure and reason is rate-limited (`RateLimitedLog`): a storm becomes one line per interval with
/// `log.suppressed`, the number of like lines left out since the last one.
public final class ObservabilityObserver: PipelineObserver {
    private let logger: Logger
    private let metrics: PushMetrics
    private let producerHealth: ProducerHealth?
    /// The last failure each provider answered: the reason a breaker opened.
    private let lastFailures = Mutex<[PushProvider: (reason: String, status: Int?)]>([:])
    private let failureLog: RateLimitedLog
    /// The latency histogram of every configured provider, looked up once (it exists from the start).
    private let sendLatencies: [PushProvider: Histogram]
    /// The series every send or record changes, looked up once.
    private let sendsInFlight: Gauge
    private let endToEndLatency: Histogram
    /// The send and receipt counters seen so far: a registry lookup builds the label set and takes the registry's
    /// lock, and these change on every send and every receipt.
    private let counters = Mutex(HotCounters())

    private struct HotCounters {
        var sends: [SendSeries: Counter] = [:]
        var receipts: [ReceiptStatus: Counter] = [:]
    }

    private struct SendSeries: Hashable {
        var provider: PushProvider
        var status: String
    }

    /// An observer writing to `logger` and `metrics`; with `readiness`, it also keeps the producer's condition
    /// there (`ProducerHealth`). Creates the series of every configured provider (breaker closed) and the
    /// unlabelled ones at zero, so that dashboards and alerts see them at once. Failure lines of one kind and reason
    /// are written at most once per `logInterval` of `clock`.
    public init(
        logger: Logger, metrics: PushMetrics, readiness: HealthChecks? = nil,
        providers: [PushProvider] = PushProvider.allCases, logInterval: Duration = .seconds(10),
        clock: any WallClock = SystemWallClock()
    ) {
        self.logger = logger
        self.metrics = metrics
        failureLog = RateLimitedLog(logger: logger, interval: logInterval, clock: clock)
        self.producerHealth = readiness.map(ProducerHealth.init)
        // Every series a dashboard or an alert reads exists from the start, at zero.
        var sendLatencies: [PushProvider: Histogram] = [:]
        for provider in providers {
            metrics.breakerOpen(provider: provider.rawValue).set(0)
            sendLatencies[provider] = metrics.sendLatency(provider: provider.rawValue)
        }
        self.sendLatencies = sendLatencies
        metrics.exportClosedLabelSetsAtZero(providers: providers)
        sendsInFlight = metrics.sendsInFlight
        endToEndLatency = metrics.endToEndLatency
        _ = (metrics.retryHandoffs, metrics.inFlightLimitWaits)
        _ = (metrics.httpConnections, metrics.httpResends, metrics.httpOversizedResponses, metrics.produceEarlyReleases)
    }

    public func observe(_ event: PipelineEvent) {
        count(event)
        log(event)
    }

    /// The metrics of an event.
    private func count(_ event: PipelineEvent) {
        switch event {
        case .polled(let topic, let count):
            metrics.recordsConsumed(topic: topic).increment(by: UInt64(clamping: count))
        case .sendStarted:
            sendsInFlight.increment()
        case .sent(let provider, let outcome, let latencyMillis):
            if let failure = Self.failure(of: outcome) {
                lastFailures.withLock { $0[provider] = failure }
            }
            sendsInFlight.decrement()
            sendCounter(provider, status: outcome.metricStatus).increment()
            (sendLatencies[provider] ?? metrics.sendLatency(provider: provider.rawValue)).observe(latencyMillis / 1000)
            if case .retry = outcome { metrics.retries(provider: provider.rawValue).increment() }
        case .receipt(let status):
            receiptCounter(status).increment()
        case .endToEnd(let latencyMillis):
            endToEndLatency.observe(max(0, latencyMillis) / 1000)
        case .retryScheduled:
            metrics.retryHandoffs.increment()
        case .waitedForRoom:
            metrics.inFlightLimitWaits.increment()
        case .retryMovedOn(let from, let to):
            metrics.retryTierMoves(from: from, to: to).increment()
        case .deadLettered(let reason):
            metrics.deadLetters(reason: reason.code).increment()
        case .breakerOpened(let provider):
            metrics.breakerOpen(provider: provider.rawValue).set(1)
        case .breakerClosed(let provider):
            metrics.breakerOpen(provider: provider.rawValue).set(0)
        case .assigned:
            metrics.rebalances(event: "assigned").increment()
        case .revoked:
            metrics.rebalances(event: "revoked").increment()
        case .lost:
            metrics.rebalances(event: "lost").increment()
        case .produceRetrying(let topics, let reason):
            for topic in topics { metrics.produceRetries(topic: topic, reason: reason).increment() }
            producerHealth?.failed()
        case .produceRecovered:
            producerHealth?.recovered()
        default:
            break
        }
    }

    /// The log line of an event, if it has one.
    private func log(_ event: PipelineEvent) {
        switch event {
        case .offsetStored, .polled, .sendStarted, .sent, .receipt, .endToEnd, .deadLettered, .retryScheduled,
            .produceRecovered, .waitedForRoom:
            break
        case .sendFailed(let outcome, let context):
            logSendFailure(outcome, context)
        case .deviceHandedOff(let failure, let context):
            failureLog.log(
                .info, "handed to the retry topic", key: "retry:\(context.provider?.rawValue ?? ""):\(failure.message)",
                metadata: context.metadata.merging(Self.metadata(of: failure)) { $1 })
        case .deviceDeadLettered(let failure, let context):
            failureLog.log(
                .warning, "dead-lettered", key: "dlq:\(failure.reason.code):\(failure.message)",
                metadata: context.metadata.merging(Self.metadata(of: failure)) { $1 })
        case .recordDeadLettered(let failure, let partition, let offset):
            var metadata = Self.metadata(of: failure)
            metadata["kafka.partition"] = .string(partition.description)
            metadata["kafka.offset"] = .init(offset)
            failureLog.log(
                .warning, "record dead-lettered", key: "record-dlq:\(failure.reason.code)", metadata: metadata)
        case .retryMovedOn(let from, let to):
            logger.debug(
                "retry taken up before its due time, moved on unsent",
                metadata: ["kafka.topic": .string(from), "push.retry_topic": .string(to)])
        case .breakerOpened(let provider):
            var metadata: Logger.Metadata = ["push.provider": .string(provider.rawValue)]
            if let last = lastFailures.withLock({ $0[provider] }) {
                metadata["push.reason"] = .string(last.reason)
                if let status = last.status { metadata["http.status"] = .init(status) }
            }
            logger.warning("provider breaker opened, its sends paused", metadata: metadata)
        case .breakerClosed(let provider):
            logger.notice(
                "provider breaker closed, its sends resumed", metadata: ["push.provider": .string(provider.rawValue)])
        case .originBreakerOpened(let provider, let origin):
            failureLog.log(
                .warning, "push service breaker opened, its sends go to the retry topic", key: "origin-breaker:open",
                metadata: ["push.provider": .string(provider.rawValue), "push.origin": .string(origin)])
        case .originBreakerClosed(let provider, let origin):
            failureLog.log(
                .notice, "push service breaker closed, its sends resumed", key: "origin-breaker:closed",
                metadata: ["push.provider": .string(provider.rawValue), "push.origin": .string(origin)])
        case .paused(let partitions):
            logger.debug("partitions paused", metadata: ["kafka.partitions": .string(Self.list(partitions))])
        case .resumed(let partitions):
            logger.debug("partitions resumed", metadata: ["kafka.partitions": .string(Self.list(partitions))])
        case .assigned(let partitions):
            logger.info("partitions assigned", metadata: ["kafka.partitions": .string(Self.list(partitions))])
        case .revoked(let partitions, let unfinished):
            logger.info(
                "partitions revoked",
                metadata: ["kafka.partitions": .string(Self.list(partitions)), "kafka.unfinished": .init(unfinished)])
        case .lost(let partitions):
            logger.warning(
                "partitions lost",
                metadata: [
                    "kafka.partitions": .string(Self.list(partitions)),
                    "kafka.reason": .string(
                        "taken by the group without a revoke: records finished since the last commit are sent again"),
                ])
        case .pollFailed(let error):
            logger.warning("kafka poll failed", metadata: ["error": .string(error)])
        case .produceRetrying(let topics, let reason):
            logger.warning(
                "kafka produce failed, producing again after a backoff",
                metadata: ["kafka.topics": .string(topics.joined(separator: ",")), "error": .string(reason)])
        case .headerIgnored(let partition, let offset, let header, let reason):
            logger.warning(
                "failure header ignored",
                metadata: [
                    "kafka.partition": .string(partition.description), "kafka.offset": .init(offset),
                    "kafka.header": .string(header), "error": .string(reason),
                ])
        case .storeFailed(let partition, let error):
            logger.warning(
                "offset store failed",
                metadata: ["kafka.partition": .string(partition.description), "error": .string(error)])
        case .finalCommitWaitExpired:
            logger.warning("periodic commit did not cover the stored offsets in time, committing them directly")
        case .commitFailed(let error):
            logger.error("final commit failed", metadata: ["error": .string(error)])
        case .stalled(let sinceMillis):
            logger.critical(
                "polling stalled past max.poll.interval.ms", metadata: ["kafka.last_poll_ms": .init(sinceMillis)])
        case .shutdownStarted(let inFlight):
            logger.notice("shutting down", metadata: ["push.in_flight": .init(inFlight)])
        case .shutdownFinished(let unfinished):
            logger.notice("shut down", metadata: ["push.unfinished": .init(unfinished)])
        }
    }

    /// A send that did not deliver: refused credentials are an error, a transient failure or a rejection a warning,
    /// a dead token (normal churn) an info line.
    private func logSendFailure(_ outcome: DeliveryOutcome, _ context: SendContext) {
        guard let (reason, status) = Self.failure(of: outcome) else { return }
        let level: LogLevel
        let message: Logger.Message
        switch outcome {
        case .delivered: return
        case .credentials: (level, message) = (.error, "provider refused credentials")
        case .retry: (level, message) = (.warning, "provider send failed")
        case .rejected, .tooLarge: (level, message) = (.warning, "provider rejected the send")
        case .invalidToken: (level, message) = (.info, "provider reports the token invalid")
        }
        var metadata = context.metadata
        metadata["push.reason"] = .string(reason)
        metadata["push.outcome"] = .string(outcome.metricStatus)
        if let status { metadata["http.status"] = .init(status) }
        if case .retry(_, _, let after?) = outcome { metadata["push.retry_after_ms"] = .init(after.wholeMilliseconds) }
        failureLog.log(
            level, message, key: "send:\(outcome.metricStatus):\(context.provider?.rawValue ?? ""):\(reason)",
            metadata: metadata)
    }

    /// The reason and HTTP status of a failed outcome; `nil` when delivered.
    private static func failure(of outcome: DeliveryOutcome) -> (reason: String, status: Int?)? {
        switch outcome {
        case .delivered: nil
        case .invalidToken(let status, let reason, _), .rejected(let status, let reason),
            .retry(let status, let reason, _), .credentials(let status, let reason), .tooLarge(let status, let reason):
            (reason, status)
        }
    }

    /// `push.reason` (the stable code), `error` (what went wrong), `http.status` and `push.attempts`.
    private static func metadata(of failure: DeliveryFailure) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "push.reason": .string(failure.reason.code), "error": .string(failure.message),
            "push.attempts": .init(failure.attempts),
        ]
        if let status = failure.status { metadata["http.status"] = .init(status) }
        return metadata
    }

    /// `push_sends_total{provider, status}`, from the registry the first time.
    private func sendCounter(_ provider: PushProvider, status: String) -> Counter {
        let series = SendSeries(provider: provider, status: status)
        if let counter = counters.withLock({ $0.sends[series] }) { return counter }
        let counter = metrics.sends(provider: provider.rawValue, status: status)
        counters.withLock { $0.sends[series] = counter }
        return counter
    }

    /// `push_receipts_total{status}`, from the registry the first time.
    private func receiptCounter(_ status: ReceiptStatus) -> Counter {
        if let counter = counters.withLock({ $0.receipts[status] }) { return counter }
        let counter = metrics.receipts(status: status.rawValue)
        counters.withLock { $0.receipts[status] = counter }
        return counter
    }

    private static func list(_ partitions: [TopicPartition]) -> String {
        partitions.map(\.description).joined(separator: ",")
    }
}
