import Essentials
import Kafka
import Lifecycle
import Observability
import PipelineMetrics

/// Ends the group gracefully with `WorkerExitCode.failure` once the consumer or the producer failed fatally
/// (librdkafka records such an error and the client never recovers): checked once a second, the failure is logged
/// naming the client, and a failed producer also fails its readiness check for good. Started right after the
/// producer's service and shut down right before it; its shutdown stops the watch.
struct KafkaFatalErrorService: Service {
    let source: KafkaRecordSource
    let producer: KafkaProducer
    let readiness: HealthChecks
    let logger: Logger
    let clock: any WallClock

    func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest { try await watch() }
    }

    /// Returns when cancelled; throws the group's exit when a Kafka client failed fatally.
    private func watch() async throws(ServiceGroupExit) {
        while (try? await clock.sleep(for: .seconds(1))) != nil {
            guard let (client, fatal) = fatalKafkaError() else { continue }
            logger.critical(
                "kafka client failed fatally, stopping",
                metadata: ["kafka.client": .string(client), "error": .string(fatal.description)])
            if client == "producer" {
                readiness.set(ProducerHealth.readinessCondition, passing: false, detail: "failed fatally")
            }
            throw ServiceGroupExit(code: WorkerExitCode.failure, mode: .graceful)
        }
    }

    /// The first fatal error of a Kafka client, naming the client (`consumer` or `producer`).
    private func fatalKafkaError() -> (client: String, error: KafkaError)? {
        if let fatal = source.fatalError { return ("consumer", fatal) }
        if let fatal = producer.fatalError { return ("producer", fatal) }
        return nil
    }
}
