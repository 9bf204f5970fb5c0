import Adapters
import Essentials
import Kafka
import Lifecycle
import Observability
import PipelineMetrics

/// Whether a consumer (the input stage's, the fan-out stage's) or the producer failed fatally (librdkafka records such
/// an error and the client never recovers). As a service (`service(clock:)`, beside the producer's in the group) it
/// checks once a second and ends the group gracefully with `WorkerExitCode.failure`: the failure is logged naming the
/// client, and a failed producer also fails its readiness check for good.
struct KafkaFatalErrorWatch: Sendable {
    /// A Kafka client watched: its name in the log line (`kafka.client`) and its fatal error, once it has one.
    struct Client: Sendable {
        let name: String
        let fatalError: @Sendable () -> KafkaError?
    }

    /// The producer's name among the clients: its fatal error also fails its readiness check.
    static let producerName = "producer"

    /// The clients, checked in this order.
    let clients: [Client]
    let readiness: HealthChecks
    let logger: Logger

    /// Watches the consumers of `consumers` (name, consumer) and `producer`.
    init(
        consumers: [(name: String, source: KafkaRecordSource)], producer: KafkaProducer, readiness: HealthChecks,
        logger: Logger
    ) {
        let clients = consumers.map { consumer in
            Client(name: consumer.name, fatalError: { consumer.source.fatalError })
        }
        self.init(
            clients: clients + [Client(name: Self.producerName, fatalError: { producer.fatalError })],
            readiness: readiness, logger: logger)
    }

    init(clients: [Client], readiness: HealthChecks, logger: Logger) {
        self.clients = clients
        self.readiness = readiness
        self.logger = logger
    }

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
        if client == Self.producerName {
            readiness.set(ProducerHealth.readinessCondition, passing: false, detail: "failed fatally")
        }
        throw ServiceGroupExit(code: WorkerExitCode.failure, mode: .graceful)
    }

    /// The first fatal error of a Kafka client, naming the client.
    private func fatalKafkaError() -> (client: String, error: KafkaError)? {
        for client in clients {
            if let fatal = client.fatalError() { return (client.name, fatal) }
        }
        return nil
    }
}
