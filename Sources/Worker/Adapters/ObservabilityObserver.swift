import Observability

/// The observer port over the logger and the metrics registry.
public struct ObservabilityObserver: PipelineObserver {
    private let logger: Logger
    private let metrics: PushMetrics
    private let producerHealth: ProducerHealth?

    /// An observer writing to `logger` and `metrics`; with `readiness`, it also keeps the producer's condition
    /// there (`ProducerHealth`).
    public init(logger: Logger, metrics: PushMetrics, readiness: Readiness? = nil) {
        self.logger = logger
        self.metrics = metrics
        self.producerHealth = readiness.map(ProducerHealth.init)
    }

    public func observe(_ event: PipelineEvent) {
        switch event {
        case .offsetStored:
            break
        case .polled(let topic, let count):
            metrics.recordsConsumed(topic: topic).increment(by: UInt64(count))
        case .sendStarted:
            metrics.inflight.increment()
        case .sent(let provider, let outcome, let latencyMillis):
            metrics.inflight.decrement()
            metrics.sends(provider: provider.rawValue, status: Self.status(of: outcome)).increment()
            metrics.sendLatency(provider: provider.rawValue).observe(latencyMillis / 1000)
            if case .retry = outcome { metrics.retries(provider: provider.rawValue).increment() }
            if case .credentials(let reason) = outcome {
                logger.error(
                    "provider refused credentials",
                    metadata: ["push.provider": .string(provider.rawValue), "error": .string(reason)])
            }
        case .receipt(let status):
            metrics.receipts(status: status.rawValue).increment()
        case .retryScheduled(let attempts):
            logger.debug("handed to the retry topic", metadata: ["push.attempts": .init(attempts)])
        case .deadLettered(let reason):
            metrics.deadLetters(reason: reason).increment()
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
            for topic in topics { metrics.produceRetries(topic: topic, reason: reason).increment() }
            producerHealth?.failed()
            logger.warning(
                "kafka produce failed, producing again after a backoff",
                metadata: ["kafka.topics": .string(topics.joined(separator: ",")), "error": .string(reason)])
        case .produceRecovered:
            producerHealth?.recovered()
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

    private static func status(of outcome: SendOutcome) -> String {
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
