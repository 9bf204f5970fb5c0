import Essentials
import HTTP2
import Kafka
import Lifecycle
import Observability
import PipelineMetrics
import PushPipeline

/// Once a second: copies lag, commit answers, records in flight and the HTTP/2 transports' counts into the metrics (`MetricsSampler`), and
/// ends the group gracefully with `WorkerExitCode.failure` when a Kafka client failed fatally. Its shutdown stops the
/// sampling.
struct MetricsSamplingService: Service {
    let metrics: PushMetrics
    let source: KafkaRecordSource
    let producer: KafkaProducer
    let pipeline: Pipeline<ProviderSend>
    /// The HTTP/2 transports, whose connection and resend counts are sampled.
    let transports: [any HTTP2Transport]
    let readiness: HealthChecks
    let logger: Logger
    let clock: any WallClock

    func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest { try await sample() }
    }

    /// Samples once a second until cancelled, or until a Kafka client failed fatally.
    private func sample() async throws(ServiceGroupExit) {
        var sampler = MetricsSampler(metrics: metrics)
        while (try? await clock.sleep(for: .seconds(1))) != nil {
            sampler.sample(
                lag: source.lag, commits: source.commits, recordsInFlight: pipeline.recordsInFlight,
                devicesInFlight: pipeline.devicesInFlight,
                http: transports.map(\.counts).reduce(HTTP2TransportCounts(), +))
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
