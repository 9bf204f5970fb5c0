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

    public init(registry: MetricsRegistry) {
        self.registry = registry
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

    /// `push_inflight`: device sends started and not yet finished.
    public var inflight: Gauge {
        registry.gauge("push_inflight", help: "Device sends in flight.")
    }

    /// `kafka_consumer_lag{topic,partition}`: records behind the partition's high watermark.
    public func consumerLag(topic: String, partition: Int32) -> Gauge {
        registry.gauge(
            "kafka_consumer_lag", help: "Records between the consumer position and the high watermark.",
            labels: ["topic": topic, "partition": String(partition)])
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
