import Essentials
import HTTP2
import Lifecycle
import PipelineMetrics

/// Once a second: copies the consumer's lag and commit answers and the HTTP/2 transports' counts, which those
/// clients count themselves, into the metrics (`MetricsSampler`). Its shutdown stops the sampling.
struct MetricsSamplingService: Service {
    let metrics: PushMetrics
    let source: KafkaRecordSource
    /// The HTTP/2 transports, whose connection and resend counts are sampled.
    let transports: [any HTTP2Transport]
    let clock: any WallClock

    func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest { await sample() }
    }

    /// Samples once a second until cancelled.
    private func sample() async {
        var sampler = MetricsSampler(metrics: metrics)
        while (try? await clock.sleep(for: .seconds(1))) != nil {
            sampler.sample(
                lag: source.lag, commits: source.commits,
                http: transports.map(\.counts).reduce(HTTP2TransportCounts(), +))
        }
    }
}
