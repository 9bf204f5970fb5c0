import Adapters
import Essentials
import Kafka
import Lifecycle
import Observability
import PipelineMetrics

/// Whether the consumer or the producer failed fatally (librdkafka records such an error and the client never
/// recovers). As a service (`service(clock:)`, beside the producer's in the group) it checks once a second and ends
/// the group gracefully with `WorkerExitCode.failure`: the failure is logged naming the client, and a failed producer
/// also fails its readiness check for good.
struct KafkaFatalErrorWatch: Sendable {
    let source: KafkaRecordSource
    let producer: KafkaProducer
    let readiness: HealthChecks
    let logger: Logger

    /// The watch, once a second.
    func service(clock: any WallClock) -> PeriodicService<Void> {
        PeriodicService(interval: .seconds(1), clock: clock) { () throws(ServiceGroupExit) in try check() }
    }

    /// Throws the group's exit when a Kafka client failed fatally.
    func check() throws(ServiceGroupExit) {
        guard let (client, fatal) = fatalKafkaError() else { return }
        logger.critical(
            "kafka client failed fatally, stopping",
            metadata: ["kafka.client": .string(client), "error": .string(fatal.description)])
        if client == "producer" {
            readiness.set(ProducerHealth.readinessCondition, passing: false, detail: "failed fatally")
        }
        throw ServiceGroupExit(code: WorkerExitCode.failure, mode: .graceful)
    }

    /// The first fatal error of a Kafka client, naming the client (`consumer` or `producer`).
    private func fatalKafkaError() -> (client: String, error: KafkaError)? {
        if let fatal = source.fatalError { return ("consumer", fatal) }
        if let fatal = producer.fatalError { return ("producer", fatal) }
        return nil
    }
}
