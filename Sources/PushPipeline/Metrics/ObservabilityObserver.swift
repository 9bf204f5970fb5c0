import KafkaTypes
import Observability
import PushCore
import Synchronization

/// The observer port over the logger and the metrics registry; it also keeps the state that gauges and the
/// readiness check need (partitions owned and paused, breakers open).
public final class ObservabilityObserver: PipelineObserver {
    private let logger: Logger
    private let metrics: PushMetrics
    private let producerHealth: ProducerHealth?
    private let state = Mutex(ObservedState())
    /// The latency histogram of every configured provider, looked up once (it exists from the start).
    private let sendLatencies: [PushProvider: Histogram]
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

    /// What the events so far add up to.
    private struct ObservedState {
        var assigned: Set<TopicPartition> = []
        var paused: Set<TopicPartition> = []
        var openBreakers: Set<PushProvider> = []
    }

    /// An observer writing to `logger` and `metrics`; with `readiness`, it also keeps the producer's condition
    /// there (`ProducerHealth`). Creates the series of every configured provider (breaker closed) and the
    /// unlabelled ones at zero, so that dashboards and alerts see them at once.
    public init(
        logger: Logger, metrics: PushMetrics, readiness: HealthChecks? = nil,
        providers: [PushProvider] = PushProvider.allCases
    ) {
        self.logger = logger
        self.metrics = metrics
        self.producerHealth = readiness.map(ProducerHealth.init)
        // Every series a dashboard or an alert reads exists from the start, at zero.
        var sendLatencies: [PushProvider: Histogram] = [:]
        for provider in providers {
            metrics.breakerOpen(provider: provider.rawValue).set(0)
            _ = metrics.retries(provider: provider.rawValue)
            sendLatencies[provider] = metrics.sendLatency(provider: provider.rawValue)
        }
        self.sendLatencies = sendLatencies
        for event in ["assigned", "revoked"] { _ = metrics.rebalances(event: event) }
        _ = (
            metrics.retryHandoffs, metrics.endToEndLatency, metrics.sendsInFlight, metrics.recordsInFlight,
            metrics.devicesInFlight, metrics.inFlightLimitWaits, metrics.recordsWaitingDue
        )
        _ = (metrics.partitionsAssigned, metrics.partitionsPaused)
    }

    /// The providers whose breaker is open now, in `PushProvider` order.
    public var openBreakers: [PushProvider] {
        let open = state.withLock { $0.openBreakers }
        return PushProvider.allCases.filter(open.contains)
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
            metrics.sendsInFlight.increment()
        case .sent(let provider, let outcome, let latencyMillis):
            metrics.sendsInFlight.decrement()
            sendCounter(provider, status: Self.status(of: outcome)).increment()
            (sendLatencies[provider] ?? metrics.sendLatency(provider: provider.rawValue)).observe(latencyMillis / 1000)
            if case .retry = outcome { metrics.retries(provider: provider.rawValue).increment() }
        case .receipt(let status):
            receiptCounter(status).increment()
        case .endToEnd(let latencyMillis):
            metrics.endToEndLatency.observe(max(0, latencyMillis) / 1000)
        case .retryScheduled:
            metrics.retryHandoffs.increment()
        case .waitedForRoom:
            metrics.inFlightLimitWaits.increment()
        case .waitingForDueTime(let count):
            metrics.recordsWaitingDue.set(count)
        case .retryMovedOn(let from, let to):
            metrics.retryTierMoves(from: from, to: to).increment()
        case .deadLettered(let reason):
            metrics.deadLetters(reason: reason.code).increment()
        case .breakerOpened(let provider), .breakerClosed(let provider):
            let open = event == .breakerOpened(provider)
            state.withLock { state in
                if open { state.openBreakers.insert(provider) } else { state.openBreakers.remove(provider) }
            }
            metrics.breakerOpen(provider: provider.rawValue).set(open ? 1 : 0)
        case .paused(let partitions), .resumed(let partitions):
            let paused = event == .paused(partitions)
            let count = state.withLock { state in
                if paused { state.paused.formUnion(partitions) } else { state.paused.subtract(partitions) }
                return state.paused.count
            }
            metrics.partitionsPaused.set(count)
        case .assigned(let partitions):
            metrics.rebalances(event: "assigned").increment()
            let count = state.withLock { state in
                state.assigned.formUnion(partitions)
                return state.assigned.count
            }
            metrics.partitionsAssigned.set(count)
        case .revoked(let partitions, _):
            metrics.rebalances(event: "revoked").increment()
            let (assigned, paused) = state.withLock { state in
                state.assigned.subtract(partitions)
                state.paused.subtract(partitions)
                return (state.assigned.count, state.paused.count)
            }
            metrics.partitionsAssigned.set(assigned)
            metrics.partitionsPaused.set(paused)
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
        case .offsetStored, .polled, .sendStarted, .receipt, .endToEnd, .deadLettered, .produceRecovered,
            .waitedForRoom, .waitingForDueTime:
            break
        case .sent(let provider, let outcome, _):
            if case .credentials(_, let reason) = outcome {
                logger.error(
                    "provider refused credentials",
                    metadata: ["push.provider": .string(provider.rawValue), "error": .string(reason)])
            }
        case .retryScheduled(let attempts):
            logger.debug("handed to the retry topic", metadata: ["push.attempts": .init(attempts)])
        case .retryMovedOn(let from, let to):
            logger.debug(
                "retry taken up before its due time, moved on unsent",
                metadata: ["kafka.topic": .string(from), "push.retry_topic": .string(to)])
        case .breakerOpened(let provider):
            logger.warning(
                "provider failing, consumption paused", metadata: ["push.provider": .string(provider.rawValue)])
        case .breakerClosed(let provider):
            logger.notice(
                "provider recovered, consumption resumed", metadata: ["push.provider": .string(provider.rawValue)])
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

    private static func status(of outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .delivered: ReceiptStatus.delivered.rawValue
        case .invalidToken: ReceiptStatus.invalidToken.rawValue
        case .rejected: ReceiptStatus.rejected.rawValue
        case .retry: "retry"
        case .credentials: "credentials"
        }
    }

    private static func list(_ partitions: [TopicPartition]) -> String {
        partitions.map(\.description).joined(separator: ",")
    }
}
