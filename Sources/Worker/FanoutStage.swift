import Adapters
import Configuration
import Essentials
import Kafka
import Lifecycle
import Observability
import PipelineMetrics
import PushCore
import PushPipeline

/// The fan-out stage of the `assigned` registry scope (docs/partitioned-registry.md): a consumer of the fan-out topic
/// in its own group, whose assignment drives the registry partitions the worker holds (`AssignedRegistry`), planning
/// each recipient client's record against the registry partition of its number (`AssignedDirectory`). The input
/// stage writes those records (`inputPlanner`).
struct FanoutStage {
    let configuration: FanoutConfiguration
    /// The co-partitioned topics' partition count, checked at the start.
    let partitions: Int
    let registry: AssignedRegistry
    let source: GatedRecordSource

    /// Why the stage cannot start: the exit code, after the line that says why was logged.
    struct Refused: Error {
        let code: Int32
    }

    /// Checks that the fan-out and registry topics are co-partitioned (a mismatch exits 3 with the topics and their
    /// counts, metadata that cannot be read exits 1), then subscribes the fan-out consumer. The registry partitions'
    /// rate-limited warnings read `clock`.
    static func start(
        _ worker: WorkerConfiguration, producer: KafkaProducer, clock: any WallClock, logger: Logger
    ) async throws(Refused) -> FanoutStage {
        let fanout = worker.fanout
        let checked: Result<Int, CoPartitioning.Mismatch>
        do {
            checked = try await CoPartitioningWatch.check(
                partitionsOf: metadata(producer), fanoutTopic: fanout.topic, registry: worker.registry)
        } catch {
            logger.critical(
                "cannot read the co-partitioned topics' metadata", metadata: ["error": .string(error.description)])
            throw Refused(code: WorkerExitCode.failure)
        }
        let partitions: Int
        switch checked {
        case .success(let count): partitions = count
        case .failure(let mismatch):
            logger.critical(
                "cannot start the assigned registry scope", metadata: ["error": .string(mismatch.description)])
            throw Refused(code: WorkerExitCode.configuration)
        }
        var kafka = worker.kafka.forPipelineInput
        kafka.properties["group.id"] = fanout.group
        let kafkaLogger = logger.with(["component": "kafka", "kafka.group": .string(fanout.group)])
        let consumer: KafkaRecordSource
        do {
            consumer = try await KafkaRecordSource(
                configuration: kafka, topics: [fanout.topic], errorHandler: kafkaLogger.kafkaErrorHandler(),
                logHandler: kafkaLogger.kafkaLogHandler())
        } catch {
            logger.critical("cannot start", metadata: ["error": .string(String(describing: error))])
            throw Refused(code: WorkerExitCode.failure)
        }
        let registry = AssignedRegistry(
            configuration: worker.kafka, registry: worker.registry, partitions: partitions, logger: logger,
            clock: clock)
        logger.info(
            "assigned registry scope",
            metadata: [
                "kafka.topic": .string(fanout.topic), "kafka.group": .string(fanout.group),
                "registry.partitions": .init(partitions),
            ])
        return FanoutStage(
            configuration: fanout, partitions: partitions, registry: registry,
            source: GatedRecordSource(inner: consumer, registry: registry))
    }

    /// The partitions of the topics that exist among those named, as `producer` reads them from one request for the
    /// brokers' metadata, never creating one.
    private static func metadata(_ producer: KafkaProducer)
        -> @Sendable ([String]) async throws(KafkaError) -> [String: [Int32]]
    {
        { topics throws(KafkaError) in try await producer.partitions(ofExisting: topics) }
    }

    /// The input stage's planner: IMKIT messages and custom pushes go to the fan-out topic, one record per recipient
    /// client in its client's partition, within the fan-out budget and the event `limits`; everything else is
    /// planned by `events`.
    func inputPlanner(_ events: any EventPlanner<ProviderSend>, limits: EventLimits) -> FanoutPlanner<ProviderSend> {
        let partitions = partitions
        return FanoutPlanner(
            events: events, topic: configuration.topic,
            placement: { ClientPartitioner.partition(of: $0, partitions: partitions) }, budget: configuration.budget,
            imkitDecoder: IMKITMessageDecoder(limits: limits), customDecoder: CustomPushDecoder(limits: limits))
    }

    /// Where the input stage sends a dead token whose client's registry partition is not restored on this pod.
    var deadTokenRoute: DeadTokenRoute {
        let registry = registry
        return DeadTokenRoute(
            fanoutTopic: configuration.topic, partitions: partitions, holders: { registry.holders(ofPartition: $0) },
            counts: registry.unsubscribes)
    }

    /// `planner`, applying the unsubscribe requests among the fan-out records to the registry partitions held here,
    /// their tombstones placed by `placement`.
    func unsubscribing<Planner: EventPlanner>(_ planner: Planner, placement: RegistryPlacement)
        -> UnsubscribeRequestPlanner<Planner>
    {
        let registry = registry
        return UnsubscribeRequestPlanner(
            inner: planner, partitions: partitions, holders: { registry.holders(ofPartition: $0) },
            placement: placement, counts: registry.unsubscribes)
    }

    /// Where the fan-out stage looks clients up.
    var directory: AssignedDirectory { AssignedDirectory(registry: registry, partitions: partitions) }

    /// The input's pipeline settings for the fan-out consumer: its topic and group.
    func settings(_ input: PipelineSettings) -> PipelineSettings {
        var settings = input
        settings.inputTopics = [configuration.topic]
        settings.group = configuration.group
        return settings
    }

    /// The stage's services: the registry partitions, the co-partitioning watch, the fan-out consumer's watchdog and
    /// its metrics sampler (lag, commits: `stage="fanout"`), started before the pipelines.
    func services(
        producer: KafkaProducer, worker: WorkerConfiguration, pipeline: Pipeline<ProviderSend>,
        observer: any PipelineObserver, metrics: PushMetrics, clock: any WallClock, logger: Logger
    ) -> [ServiceGroup.Entry] {
        [
            .init("registry partitions", registry),
            .init(
                "co-partitioning watch",
                CoPartitioningWatch(
                    partitionsOf: Self.metadata(producer), fanoutTopic: configuration.topic, registry: worker.registry,
                    partitions: partitions, interval: .seconds(30), clock: clock, logger: logger)),
            .init(
                "fan-out watchdog",
                WatchdogService(
                    watchdog: Watchdog(limit: worker.pipeline.maxPollInterval, clock: clock),
                    lastPollMicros: { pipeline.snapshot.lastPollMicros }, observer: observer)),
            .init(
                "fan-out metrics sampler",
                MetricsSampler(metrics: metrics, stage: .fanout).service(
                    source: source.inner, transports: [], clock: clock)),
        ]
    }
}
