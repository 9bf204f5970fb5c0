import Kafka
import Lifecycle
import Observability

/// Keeps the readiness check `kafka` current: every `interval`, a metadata request for the ingress's topic
/// through its producer; passing when a broker answered within `timeout`.
struct IngressReadinessService: Service {
    let producer: KafkaProducer
    let topic: String
    let readiness: HealthChecks
    var interval: Duration = .seconds(5)
    var timeout: Duration = .seconds(2)

    /// Checks until the shutdown is requested; nothing to finish then.
    func run(shutdown: GracefulShutdown) async throws {
        let (producer, topic, readiness, interval, timeout) = (producer, topic, readiness, interval, timeout)
        try await shutdown.cancelOnRequest {
            while !Task.isCancelled {
                do throws(KafkaError) {
                    let partitions = try await producer.partitions(of: topic, timeout: timeout)
                    readiness.set(
                        "kafka", passing: !partitions.isEmpty, detail: "\(topic): \(partitions.count) partitions")
                } catch {
                    readiness.set("kafka", passing: false, detail: error.description)
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
