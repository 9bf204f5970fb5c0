import Observability
import Testing

@testable import PipelineMetrics

@Suite("Push metrics")
struct PushMetricsTests {
    @Test func concurrentUpdatesFromManyTasksAreExact() async {
        let registry = MetricsRegistry()
        let metrics = PushMetrics(registry: registry)
        let tasks = 64
        let perTask = 2_000
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    let sends = metrics.sends(provider: task.isMultiple(of: 2) ? "apns" : "fcm", status: "delivered")
                    let latency = metrics.sendLatency(provider: "apns")
                    let inflight = metrics.sendsInFlight
                    for _ in 0..<perTask {
                        inflight.increment()
                        sends.increment()
                        latency.observe(0.25)
                        inflight.decrement()
                    }
                }
            }
        }
        let total = UInt64(tasks * perTask)
        #expect(metrics.sends(provider: "apns", status: "delivered").value == total / 2)
        #expect(metrics.sends(provider: "fcm", status: "delivered").value == total / 2)
        #expect(metrics.sendLatency(provider: "apns").count == total)
        #expect(metrics.sendLatency(provider: "apns").sum == 0.25 * Double(total))
        #expect(metrics.sendsInFlight.value == 0)
    }

    @Test func pushMetricsUseTheDocumentedNames() {
        let registry = MetricsRegistry()
        let metrics = PushMetrics(registry: registry)
        metrics.sends(provider: "apns", status: "delivered").increment()
        _ = metrics.sendLatency(provider: "apns")
        metrics.sendsInFlight.set(1)
        metrics.consumerLag(topic: "chat.messages", partition: 3).set(42)
        metrics.receipts(status: "delivered").increment()
        metrics.deadLetters(reason: "decode_error").increment()
        metrics.retries(provider: "fcm").increment()
        metrics.recordsConsumed(topic: "chat.messages").increment()
        metrics.rulesReloads(result: "applied").increment()
        let text = registry.prometheusText()
        for sample in [
            #"push_sends_total{provider="apns",status="delivered"} 1"#,
            #"push_send_latency_seconds_bucket{provider="apns",le="0.001"} 0"#,
            "push_sends_in_flight 1",
            #"kafka_consumer_lag{kind="input",partition="3",topic="chat.messages"} 42"#,
            #"push_receipts_total{status="delivered"} 1"#,
            #"push_dlq_total{reason="decode_error"} 1"#,
            #"push_retries_total{provider="fcm"} 1"#,
            #"kafka_records_consumed_total{topic="chat.messages"} 1"#,
            #"push_rules_reloads_total{result="applied"} 1"#,
        ] {
            #expect(text.contains(sample + "\n"), "missing \(sample)")
        }
    }
}
