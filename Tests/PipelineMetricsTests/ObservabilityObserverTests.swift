import KafkaTypes
import Observability
import PushCore
import PushPipeline
import TestSupport
import Testing

@testable import PipelineMetrics

@Suite struct ObservabilityObserverTests {
    @Test func pipelineEventsBecomeTheDocumentedMetrics() {
        let registry = MetricsRegistry()
        let observer = ObservabilityObserver(
            logger: Logger(label: "test", level: .critical), metrics: PushMetrics(registry: registry))
        observer.observe(.polled(topic: "chat", count: 3))
        observer.observe(.sendStarted(.apns))
        observer.observe(.sendStarted(.fcm))
        observer.observe(.sent(.apns, .delivered(providerMessageId: "x"), latencyMillis: 12))
        observer.observe(.sent(.fcm, .retry(status: 503, reason: "UNAVAILABLE", after: nil), latencyMillis: 3))
        observer.observe(.receipt(.delivered))
        observer.observe(.deadLettered(reason: .decodeError))
        observer.observe(.retryMovedOn(from: "push.retry-3600000", to: "push.retry-60000"))
        #expect(registry.prometheusText().contains("push_in_flight_limit_waits_total 0"))
        observer.observe(.waitedForRoom)
        observer.observe(.waitedForRoom)
        let text = registry.prometheusText()
        for line in [
            #"kafka_records_consumed_total{topic="chat"} 3"#, "push_sends_in_flight 0",
            #"push_sends_total{provider="apns",status="delivered"} 1"#,
            #"push_sends_total{provider="fcm",status="retry"} 1"#, #"push_retries_total{provider="fcm"} 1"#,
            #"push_receipts_total{status="delivered"} 1"#, #"push_dlq_total{reason="decode_error"} 1"#,
            #"push_send_latency_seconds_count{provider="apns"} 1"#,
            #"push_retry_tier_moves_total{from="push.retry-3600000",to="push.retry-60000"} 1"#,
            "push_in_flight_limit_waits_total 2",
        ] {
            #expect(text.contains(line), "\(line)")
        }
    }

    @Test func lostPartitionsAreCountedAndLoggedApartFromRevokedOnes() {
        let registry = MetricsRegistry()
        let sink = LogLines()
        let observer = ObservabilityObserver(
            logger: Logger(label: "test", sink: sink), metrics: PushMetrics(registry: registry))
        observer.observe(.lost([TopicPartition("chat", 1), TopicPartition("chat", 3)]))
        let text = registry.prometheusText()
        #expect(text.contains(#"kafka_rebalances_total{event="lost"} 1"#))
        #expect(text.contains(#"kafka_rebalances_total{event="revoked"} 0"#))
        let lost = sink.records("partitions lost")
        #expect(lost.map(\.level) == [.warning])
        #expect(lost.first?.metadata["kafka.partitions"] == "chat[1],chat[3]")
    }

    @Test func theTransportCountersExistAtZeroBeforeTheFirstSample() {
        let registry = MetricsRegistry()
        _ = ObservabilityObserver(
            logger: Logger(label: "test", level: .critical), metrics: PushMetrics(registry: registry))
        let lines = Set(registry.prometheusText().split(separator: "\n").map(String.init))
        for line in [
            "push_http_connections_total 0", "push_http_resends_total 0", "push_http_oversized_responses_total 0",
        ] {
            #expect(lines.contains(line), "\(line)")
        }
    }
}

@Suite struct ProducerReadinessTests {
    @Test func backingOffClearsTheProducerConditionAndAnAcknowledgementSetsIt() {
        let registry = MetricsRegistry()
        let readiness = HealthChecks()
        readiness.set("pipeline", passing: true)
        let observer = ObservabilityObserver(
            logger: Logger(label: "test", level: .critical), metrics: PushMetrics(registry: registry),
            readiness: readiness)
        #expect(readiness.evaluate().passing)
        observer.observe(.produceRetrying(topics: ["push.dlq", "push.receipts"], reason: "message_too_large"))
        #expect(readiness.evaluate().failing == ["kafka.producer"])
        observer.observe(.produceRetrying(topics: ["push.dlq"], reason: "message_too_large"))
        let text = registry.prometheusText()
        #expect(text.contains(#"push_worker_produce_retries_total{reason="message_too_large",topic="push.dlq"} 2"#))
        #expect(
            text.contains(#"push_worker_produce_retries_total{reason="message_too_large",topic="push.receipts"} 1"#))
        observer.observe(.produceRecovered)
        #expect(readiness.evaluate().passing)
    }
}
