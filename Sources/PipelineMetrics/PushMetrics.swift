public import Observability
public import PushCore
public import PushPipeline

/// The metrics push-worker exports, named in one place so that code, dashboards and the README agree.
///
/// Each accessor returns the registry's handle for its labels; hot paths keep the handles they use.
public struct PushMetrics: Sendable {
    /// The registry the metrics live in (served at `/metrics`).
    public let registry: MetricsRegistry

    /// Buckets of `push_send_latency_seconds`: 1 ms to 10 s, denser where provider round trips fall.
    public static let sendLatencyBuckets: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// The retry tiers' topics: their lag is labelled `kind="retry"`, the input topics' `kind="input"`, so that
    /// alerts and dashboards tell a backlog of new work from retries waiting for their due time.
    public let retryTopics: Set<String>

    public init(registry: MetricsRegistry, retryTopics: Set<String> = []) {
        self.registry = registry
        self.retryTopics = retryTopics
    }

    /// The `status` values of `push_sends_total`: a receipt status for a final answer, `retry` for a transient
    /// failure, `credentials` for refused credentials.
    public static let sendStatuses = ["delivered", "invalid_token", "rejected", "retry", "credentials"]

    /// The `reason` values of `push_dlq_total` the worker writes (`x-dlq-reason` of a dead-letter record).
    public static let deadLetterReasons: [DeadLetterReason] = [
        .decodeError, .recordTooLarge, .fanoutTooLarge, .unknownType, .payloadTooLarge, .retriesExhausted,
        .misplacedFanout,
    ]

    /// The `result` values of `push_rules_reloads_total`.
    public static let rulesReloadResults = ["applied", "rejected"]

    /// The `result` values of `kafka_commits_total`.
    public static let commitResults = ["success", "failure"]

    /// Creates every series of a counter family whose label values are known in advance (a closed set) at 0, so
    /// that the first scrape already holds them: `rate()`, `increase()` and "no receipts" alerts work from the
    /// start, and a series that never moves is told apart from one that is missing. Families with open label sets
    /// (topics, librdkafka error names) appear with their first increment.
    public func exportClosedLabelSetsAtZero(providers: [PushProvider]) {
        for provider in providers {
            for status in Self.sendStatuses { _ = sends(provider: provider.rawValue, status: status) }
            _ = retries(provider: provider.rawValue)
        }
        for status in ReceiptStatus.allCases { _ = receipts(status: status.rawValue) }
        for reason in Self.deadLetterReasons { _ = deadLetters(reason: reason.code) }
        for result in Self.rulesReloadResults { _ = rulesReloads(result: result) }
        for event in ["assigned", "revoked", "lost"] { _ = rebalances(event: event) }
        exportStageAtZero(.input)
    }

    /// Creates the series of `stage`'s pipeline and consumer at 0: its gauges and its commit counters.
    public func exportStageAtZero(_ stage: PipelineStage) {
        for result in Self.commitResults { _ = commits(stage: stage, result: result) }
        _ = (recordsInFlight(stage: stage), devicesInFlight(stage: stage), recordsWaitingDue(stage: stage))
        _ = (partitionsAssigned(stage: stage), partitionsPaused(stage: stage), originBreakersOpen(stage: stage))
    }

    /// `push_sends_total{provider,status}`: device sends by provider (`apns`, `fcm`) and outcome (receipt status).
    public func sends(provider: String, status: String) -> Counter {
        registry.counter(
            "push_sends_total", help: "Device sends by provider and outcome.",
            labels: ["provider": provider, "status": status])
    }

    /// `push_send_latency_seconds{provider}`: time from handing a request to the transport to its response.
    public func sendLatency(provider: String) -> Histogram {
        registry.histogram(
            "push_send_latency_seconds", help: "Provider request latency in seconds.",
            buckets: Self.sendLatencyBuckets, labels: ["provider": provider])
    }

    /// Buckets of `push_end_to_end_latency_seconds`: 10 ms to 1 h, as events may wait in a backlog or a retry.
    public static let endToEndLatencyBuckets: [Double] = [
        0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600,
    ]

    /// `push_sends_in_flight`: device sends started and not yet finished.
    public var sendsInFlight: Gauge {
        registry.gauge("push_sends_in_flight", help: "Device sends in flight.")
    }

    /// `push_records_in_flight{stage}`: records `stage`'s pipeline took from Kafka and has not done yet.
    public func recordsInFlight(stage: PipelineStage) -> Gauge {
        registry.gauge(
            "push_records_in_flight", help: "Input records consumed and not yet done.",
            labels: ["stage": stage.rawValue])
    }

    /// `push_records_waiting_due{stage}`: retry records held until their due time, at most one per retry-tier
    /// partition (their partitions paused); counted in neither in-flight gauge.
    public func recordsWaitingDue(stage: PipelineStage) -> Gauge {
        registry.gauge(
            "push_records_waiting_due", help: "Retry records held until their due time.",
            labels: ["stage": stage.rawValue])
    }

    /// `push_devices_in_flight{stage}`: planned devices of `stage`'s unfinished records, against
    /// `PUSH_MAX_IN_FLIGHT_DEVICES`.
    public func devicesInFlight(stage: PipelineStage) -> Gauge {
        registry.gauge(
            "push_devices_in_flight", help: "Planned devices of input records not yet done.",
            labels: ["stage": stage.rawValue])
    }

    /// `push_end_to_end_latency_seconds`: from an event's `createdAt` to its receipts being acknowledged by Kafka.
    public var endToEndLatency: Histogram {
        registry.histogram(
            "push_end_to_end_latency_seconds",
            help: "Time from the event's createdAt to its receipts being written, in seconds.",
            buckets: Self.endToEndLatencyBuckets)
    }

    /// `push_breaker_open{provider}`: 1 while the provider's breaker is open (consumption paused), else 0.
    public func breakerOpen(provider: String) -> Gauge {
        registry.gauge(
            "push_breaker_open", help: "Whether the provider's failure breaker is open (1) or closed (0).",
            labels: ["provider": provider])
    }

    /// `push_origin_breakers_open{stage}`: push-service origins (Web Push) whose breaker is open in `stage`'s
    /// pipeline; a count, as origins are unbounded.
    public func originBreakersOpen(stage: PipelineStage) -> Gauge {
        registry.gauge(
            "push_origin_breakers_open", help: "Push-service origins (Web Push) whose failure breaker is open.",
            labels: ["stage": stage.rawValue])
    }

    /// `push_in_flight_limit_waits_total`: times the run loop found `PUSH_MAX_IN_FLIGHT` records in flight and waited
    /// for one to end instead of polling (the worker is saturated; a limit held for a second also pauses).
    public var inFlightLimitWaits: Counter {
        registry.counter(
            "push_in_flight_limit_waits_total",
            help: "Times the run loop waited at the in-flight limit for a record to end instead of polling.")
    }

    /// `push_http_connections_total`: connections the HTTP/2 transports opened to the providers (sampled).
    public var httpConnections: SampledCounter {
        registry.sampledCounter(
            "push_http_connections_total", help: "Connections the HTTP/2 transports opened to the providers.")
    }

    /// `push_http_resends_total`: requests the HTTP/2 transports sent again after the server refused them or their
    /// connection was lost before any response byte (sampled).
    public var httpResends: SampledCounter {
        registry.sampledCounter(
            "push_http_resends_total",
            help: "Requests sent again after the server refused them or their connection was lost before a response.")
    }

    /// `push_http_oversized_responses_total`: responses the HTTP/2 transports cut off past their size bound
    /// (`HTTP2TransportConfiguration.maxResponseBytes`): each failed its request and had its stream reset (sampled).
    public var httpOversizedResponses: SampledCounter {
        registry.sampledCounter(
            "push_http_oversized_responses_total",
            help: "Responses cut off past the HTTP/2 transports' size bound; each failed its request.")
    }

    /// `push_worker_produce_early_releases_total`: times the pipeline's producer let the outputs it held go before
    /// every earlier one was acknowledged, 100 ms after the last went: a broker slow to answer (sampled).
    public var produceEarlyReleases: SampledCounter {
        registry.sampledCounter(
            "push_worker_produce_early_releases_total",
            help: "Times held outputs went to Kafka before earlier ones were acknowledged (a broker slow to answer).")
    }

    /// `push_retry_handoffs_total`: device sends handed to the retry topic.
    public var retryHandoffs: Counter {
        registry.counter("push_retry_handoffs_total", help: "Device sends handed to the retry topic.")
    }

    /// `push_retry_tier_moves_total{from,to}`: retry records taken up before their real due time and moved on,
    /// unsent, to the tier that covers the rest of their wait (the labels are configured tier topics).
    public func retryTierMoves(from: String, to: String) -> Counter {
        registry.counter(
            "push_retry_tier_moves_total",
            help: "Retry records moved on unsent to the tier covering the rest of their wait.",
            labels: ["from": from, "to": to])
    }

    /// `kafka_partitions_assigned{stage}`: the partitions `stage`'s consumer owns.
    public func partitionsAssigned(stage: PipelineStage) -> Gauge {
        registry.gauge(
            "kafka_partitions_assigned", help: "Partitions assigned to this consumer.",
            labels: ["stage": stage.rawValue])
    }

    /// `kafka_partitions_paused{stage}`: partitions `stage`'s consumer owns and paused (back pressure, an open
    /// breaker, a retry not due, a registry partition restoring).
    public func partitionsPaused(stage: PipelineStage) -> Gauge {
        registry.gauge(
            "kafka_partitions_paused", help: "Assigned partitions paused by the worker.",
            labels: ["stage": stage.rawValue])
    }

    /// `kafka_rebalances_total{event}`: partitions `assigned`, `revoked`, or `lost` (taken without a revoke) by
    /// rebalances.
    public func rebalances(event: String) -> Counter {
        registry.counter(
            "kafka_rebalances_total", help: "Rebalance callbacks, by event (assigned, revoked or lost).",
            labels: ["event": event])
    }

    /// `kafka_commits_total{stage,result}`: offset commits of `stage`'s group the coordinator answered, `success` or
    /// `failure`.
    public func commits(stage: PipelineStage, result: String) -> SampledCounter {
        registry.sampledCounter(
            "kafka_commits_total", help: "Offset commits answered by the group coordinator, by result.",
            labels: ["stage": stage.rawValue, "result": result])
    }

    /// `kafka_consumer_lag{topic,partition,kind}`: records behind the partition's high watermark; `kind` is
    /// `input` or `retry` (a retry tier's topic).
    public func consumerLag(topic: String, partition: Int32) -> Gauge {
        registry.gauge(
            "kafka_consumer_lag", help: "Records between the consumer position and the high watermark.",
            labels: ["topic": topic, "partition": String(partition), "kind": kind(of: topic)])
    }

    /// Removes the lag series of a partition this worker no longer owns, so that sums over pods stay true.
    public func removeConsumerLag(topic: String, partition: Int32) {
        registry.remove(
            "kafka_consumer_lag", labels: ["topic": topic, "partition": String(partition), "kind": kind(of: topic)])
    }

    /// `retry` for a retry tier's topic, else `input`.
    private func kind(of topic: String) -> String {
        retryTopics.contains(topic) ? "retry" : "input"
    }

    /// `push_table_entries{table}` and `push_table_bytes{table}`: the size of a table the worker keeps in memory
    /// (read from a compacted topic), read at every scrape, so that the memory limit can be sized against it.
    public func followTable(
        _ table: String, entries: @escaping @Sendable () -> Int, bytes: @escaping @Sendable () -> Int
    ) {
        let entriesGauge = registry.gauge(
            "push_table_entries", help: "Entries of an in-memory table.", labels: ["table": table])
        let bytesGauge = registry.gauge(
            "push_table_bytes", help: "Estimated bytes an in-memory table's storage takes.", labels: ["table": table])
        registry.addCollector {
            entriesGauge.set(entries())
            bytesGauge.set(bytes())
        }
    }

    /// `push_receipts_total{status}`: receipts acknowledged by Kafka, by status.
    public func receipts(status: String) -> Counter {
        registry.counter(
            "push_receipts_total", help: "Receipts written to Kafka, by status.", labels: ["status": status])
    }

    /// `push_dlq_total{reason}`: dead-letter records written, by `x-dlq-reason`.
    public func deadLetters(reason: String) -> Counter {
        registry.counter(
            "push_dlq_total", help: "Dead-letter records written, by reason.", labels: ["reason": reason])
    }

    /// `push_retries_total{provider}`: device sends handed to a later attempt (in process or via the retry topic).
    public func retries(provider: String) -> Counter {
        registry.counter(
            "push_retries_total", help: "Device sends scheduled for another attempt.", labels: ["provider": provider])
    }

    /// `kafka_records_consumed_total{topic}`: input records taken from Kafka.
    public func recordsConsumed(topic: String) -> Counter {
        registry.counter(
            "kafka_records_consumed_total", help: "Records consumed from Kafka, by topic.", labels: ["topic": topic])
    }

    /// `push_rules_reloads_total{result}`: rules-file reloads, `applied` or `rejected`.
    public func rulesReloads(result: String) -> Counter {
        registry.counter(
            "push_rules_reloads_total", help: "Rules table reloads, by result.", labels: ["result": result])
    }

    /// `push_worker_produce_retries_total{topic,reason}`: produce calls Kafka did not acknowledge and that are
    /// made again after a backoff, by output topic and reason (`message_too_large`, librdkafka's error name).
    public func produceRetries(topic: String, reason: String) -> Counter {
        registry.counter(
            "push_worker_produce_retries_total", help: "Outputs produced again after Kafka did not acknowledge them.",
            labels: ["topic": topic, "reason": reason])
    }
}

extension DeliveryOutcome {
    /// The `status` label of `push_sends_total` for this outcome (one of `PushMetrics.sendStatuses`).
    public var metricStatus: String {
        switch self {
        case .delivered: ReceiptStatus.delivered.rawValue
        case .invalidToken: ReceiptStatus.invalidToken.rawValue
        case .rejected, .tooLarge: ReceiptStatus.rejected.rawValue
        case .retry: "retry"
        case .credentials: "credentials"
        }
    }
}
