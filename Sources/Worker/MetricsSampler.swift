import Adapters
import Essentials
import HTTP2
import Kafka
import KafkaTypes
import Lifecycle
import Observability
import PipelineMetrics
import PushPipeline

/// Copies what a stage's consumer, the HTTP/2 transports and the producer count themselves into the metrics, once a
/// second as a service (`service(source:transports:producer:clock:)`): lag per owned partition (removing the series
/// of partitions no longer owned, so that sums over pods stay true), commit answers (labelled with the stage), and
/// the transports' and the producer's counts (the input stage's sampler has them; the transports and the producer
/// serve both stages). The pipeline's own gauges are read from its snapshot at each scrape
/// (`PushMetrics.followPipeline`).
struct MetricsSampler {
    let metrics: PushMetrics
    let stage: PipelineStage
    /// The partitions whose lag series exist, to remove those that were revoked.
    private var lagSeries: Set<TopicPartition> = []

    init(metrics: PushMetrics, stage: PipelineStage = .input) {
        self.metrics = metrics
        self.stage = stage
    }

    /// Samples `source`'s lag and commit answers, `transports`' counts and `producer`'s early releases (when given)
    /// once a second.
    func service(
        source: KafkaRecordSource, transports: [any HTTP2Transport], producer: KafkaProducer? = nil,
        clock: any WallClock
    ) -> PeriodicService<MetricsSampler> {
        PeriodicService(interval: .seconds(1), clock: clock, initial: self) { sampler in
            sampler.sample(
                lag: source.lag, commits: source.commits,
                http: transports.map(\.counts).reduce(HTTP2TransportCounts(), +),
                producerEarlyReleases: producer?.earlyReleases)
        }
    }

    mutating func sample(
        lag: [(topic: String, partition: Int32, records: Int64)], commits: CommitCounts, http: HTTP2TransportCounts,
        producerEarlyReleases: Int? = nil
    ) {
        var owned: Set<TopicPartition> = []
        for entry in lag {
            owned.insert(TopicPartition(entry.topic, entry.partition))
            metrics.consumerLag(topic: entry.topic, partition: entry.partition).set(entry.records)
        }
        for gone in lagSeries.subtracting(owned) {
            metrics.removeConsumerLag(topic: gone.topic, partition: gone.partition)
        }
        lagSeries = owned
        metrics.commits(stage: stage, result: "success").advance(to: Double(commits.succeeded))
        metrics.commits(stage: stage, result: "failure").advance(to: Double(commits.failed))
        metrics.httpConnections.advance(to: Double(http.connectionsOpened))
        metrics.httpResends.advance(to: Double(http.resends))
        metrics.httpOversizedResponses.advance(to: Double(http.oversizedResponses))
        if let producerEarlyReleases { metrics.produceEarlyReleases.advance(to: Double(producerEarlyReleases)) }
    }
}
