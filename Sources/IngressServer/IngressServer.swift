import Adapters
public import Configuration
public import Ingress
public import Kafka
public import Observability
import StatusServer

/// The ingress's HTTP server and the producer its records go through, started together and stopped in reverse:
/// the server first (waiting for the answers Kafka still owes), then the producer (flushing).
public final class IngressServer: Sendable {
    /// The port the ingress listens on.
    public var port: Int { server.port }
    /// The producer of the ingress's records.
    public let producer: KafkaProducer
    private let server: MicroHTTPServer
    private let admission: AdmissionInForce

    /// Creates the producer and starts listening.
    public static func start(
        configuration: IngressConfiguration, registry: MetricsRegistry, logger: Logger
    ) throws -> IngressServer {
        let kafkaLogger = logger.with(["component": "kafka"])
        let producer = try KafkaProducer(
            configuration: configuration.kafka, errorHandler: kafkaLogger.kafkaErrorHandler(),
            logHandler: kafkaLogger.kafkaLogHandler())
        let admission = AdmissionInForce(configuration.admission)
        let handler = IngressRequestHandler(
            admission: admission, producer: producer, topic: configuration.topic,
            metrics: IngressMetrics(registry: registry), logger: logger, retryAfterSeconds: 1)
        let server = try MicroHTTPServer.start(configuration: configuration.server, handler: handler)
        logger.info(
            "ingress listening",
            metadata: [
                "http.host": .string(configuration.server.host), "http.port": LogMetadataValue(server.port),
                "kafka.topic": .string(configuration.topic),
            ])
        return IngressServer(server: server, producer: producer, admission: admission)
    }

    private init(server: MicroHTTPServer, producer: KafkaProducer, admission: AdmissionInForce) {
        self.server = server
        self.producer = producer
        self.admission = admission
    }

    /// Puts `keys` in force for every request decided from now on (a keys file reload).
    public func replaceKeys(with keys: IngressKeys) {
        admission.replaceKeys(with: keys)
    }

    /// Stops listening once every awaited answer went out (within the Kafka timeout), then flushes and closes the
    /// producer.
    public func stop(answerBudget: Duration) async {
        server.stop(answerBudget: answerBudget)
        _ = await producer.close(timeout: .seconds(10))
    }
}
