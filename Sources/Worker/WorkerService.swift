import Adapters
import CLI
import Configuration
import DeviceRegistry
import Essentials
import HTTP2
import Kafka
import Lifecycle
import Observability
import PipelineMetrics
import Providers
import PushCore
import PushPipeline
import StatusServer

/// `push-worker run`: reads the configuration, builds every stage, runs the pipeline until a signal,
/// and shuts down in reverse order. Returns the process exit code (`WorkerExitCode`).
public enum WorkerService {
    /// Runs the worker with `environment` and the optional `--config` file.
    public static func run(environment: [String: String], configFile: String?) async -> Int32 {
        let settings: RunConfiguration
        do {
            settings = try RunConfiguration.load(environment: environment, configFile: configFile)
        } catch {
            return WorkerExitCode.refuse(error)
        }
        let configuration = settings.worker
        let logger = Logger(label: "push-worker", level: settings.logLevel)
        logger.info("starting", metadata: ["config": .string(configuration.description)])
        logger.logKafkaLibrary()
        logger.logAbsent(settings.absentProviders)
        if !configuration.ignoredKafkaVariables.isEmpty {
            // Kubernetes' service links (KAFKA_PORT=tcp://…) name no librdkafka property: never passed on.
            logger.warning(
                "KAFKA_* variables that name no librdkafka property ignored",
                metadata: ["kafka.ignored": .string(configuration.ignoredKafkaVariables.joined(separator: ","))])
        }

        let registry = MetricsRegistry()
        do {
            return try await withPipelineAdapters(
                configuration: configuration, rules: settings.rules, credentials: settings.credentials,
                files: SystemFileReading(), logger: logger, registry: registry
            ) { adapters in
                let source: KafkaRecordSource
                do {
                    let kafkaLogger = logger.with(["component": "kafka"])
                    source = try await KafkaRecordSource(
                        configuration: configuration.kafka.forPipelineInput,
                        topics: configuration.pipeline.inputTopics + configuration.pipeline.retryTiers.topics,
                        errorHandler: kafkaLogger.kafkaErrorHandler(), logHandler: kafkaLogger.kafkaLogHandler())
                } catch {
                    logger.critical("cannot start", metadata: ["error": .string(String(describing: error))])
                    return WorkerExitCode.failure
                }
                var fanout: FanoutStage?
                if configuration.fanout.scope == .assigned {
                    do {
                        fanout = try await FanoutStage.start(
                            configuration, producer: adapters.producer, clock: SystemWallClock(), logger: logger)
                    } catch let refused as FanoutStage.Refused {
                        await source.close()
                        return refused.code
                    } catch {
                        await source.close()
                        return WorkerExitCode.failure
                    }
                }
                if !adapters.sender.configuredProviders.contains(.webpush) {
                    logger.notice(
                        "web devices are skipped", metadata: ["push.reason": .string(WorkerHealth.webPushUnset)])
                }
                return await serve(
                    adapters, source: source, fanout: fanout, configuration: configuration, status: settings.status,
                    registry: registry, absentProviders: settings.absentProviders, logger: logger)
            }
        } catch {
            logger.critical("cannot start", metadata: ["error": .string(String(describing: error))])
            return WorkerExitCode.failure
        }
    }

    /// Runs the pipeline with its status server, clients and helpers as one `ServiceGroup` until a signal or the
    /// end of one of them.
    private static func serve(
        _ adapters: PipelineAdapters, source: KafkaRecordSource, fanout: FanoutStage?,
        configuration: WorkerConfiguration, status: HTTPServerConfiguration, registry: MetricsRegistry,
        absentProviders: [AbsentProvider],
        logger: Logger
    ) async -> Int32 {
        ProcessMetrics.register(in: registry)
        BuildInfo.register(
            in: registry, librdkafka: KafkaLibrary.version, libcurl: CurlLibrary.version,
            libmicrohttpd: MicroHTTPDLibrary.version)
        let metrics = PushMetrics(registry: registry, retryTopics: Set(configuration.pipeline.retryTiers.topics))
        let liveness = HealthChecks()
        let readiness = HealthChecks()
        readiness.set("pipeline", passing: false, detail: "starting")
        readiness.register("providers.configured") {
            WorkerHealth.providers(configured: adapters.sender.configuredProviders, absent: absentProviders)
        }
        // Before the status server: its first scrape holds every series the observer exports at 0.
        let observer = ObservabilityObserver(
            logger: logger, metrics: metrics, readiness: readiness, providers: adapters.sender.configuredProviders)
        let registryTables: RegistryTables
        let closeRegistryStore: @Sendable () -> Void
        let registryLoaded: @Sendable () -> Void
        // The assigned scope keeps its registry partitions in the fan-out stage (an LMDB store: one copy per
        // partition in the directory), none of the whole registry here.
        switch fanout == nil ? configuration.registry.store : .none {
        case .memory, .none:
            registryTables = RegistryTables(store: MemoryDeviceStore())
            closeRegistryStore = {}
            registryLoaded = {}
        case .lmdb(let path):
            do {
                let store = try LMDBDeviceStore(path: path, mapBytes: configuration.registry.mapBytes)
                RegistryMetrics.recordRebuilds(store.recovery, in: registry, logger: logger)
                try store.check(topics: [configuration.registry.devicesTopic, configuration.registry.clientsTopic])
                registryTables = RegistryTables(store: store)
                closeRegistryStore = { store.close() }
                // The load touched most of the file; lookups map back only the pages they read.
                registryLoaded = { store.releaseResidentPages() }
            } catch {
                // The directory cannot serve: another worker holds it, or its file is foreign or cannot be moved.
                logger.critical("cannot open the device store", metadata: ["error": .string(error.description)])
                return WorkerExitCode.configuration
            }
        }
        if let fanout {
            fanout.registry.register(in: registry)
        } else {
            RegistryMetrics.register(registryTables, in: registry)
        }
        let server: StatusServer
        do {
            server = try StatusServer.start(
                configuration: status, registry: registry, liveness: liveness, readiness: readiness, logger: logger)
        } catch {
            logger.critical("cannot start the status server", metadata: ["error": .string(error.description)])
            return WorkerExitCode.failure
        }
        let clock = SystemWallClock()
        let invalidTokens = InvalidTokenTable()
        let skipsInvalidTokens = configuration.pipeline.skipKnownInvalidTokens
        let invalidations = tokenInvalidationWatch(
            configuration.pipeline, metrics: metrics, providers: adapters.sender.configuredProviders, clock: clock)
        let custom = CustomPushPlanner(
            events: adapters.planner, directory: registryTables.store, apps: adapters.appContexts,
            decoder: CustomPushDecoder(limits: adapters.eventLimits))
        // The skip outside the resolutions: it reads the message's app, which they set.
        let skipping = skipsInvalidTokens ? (invalidTokens, invalidations) : nil
        let planner =
            if let fanout {
                Self.skipping(fanout.inputPlanner(custom, limits: adapters.eventLimits), skipping)
            } else {
                Self.skipping(IMKITPlanner(events: custom, directory: registryTables.store), skipping)
            }
        let placement = RegistryPlacement(
            topic: configuration.registry.devicesTopic, partitioning: configuration.registry.partitioning,
            producer: adapters.producer)
        let sink = UnsubscribingDeadTokens(
            inner: KafkaRecordSink(producer: adapters.producer),
            holders: fanout.map { $0.registry } ?? registryTables.store,
            invalidTokensTopic: configuration.pipeline.invalidTokensTopic, placement: placement,
            route: fanout?.deadTokenRoute)
        let pipeline = Pipeline(
            source: source, sink: sink, planner: planner,
            sender: adapters.sender, retryPolicy: configuration.retryDelays, clock: clock, observer: observer,
            settings: configuration.pipeline, invalidations: invalidations)

        metrics.followPipeline(stage: .input) { pipeline.snapshot }
        registerChecks(
            liveness: liveness, readiness: readiness, adapters: adapters, source: source, clock: clock,
            snapshot: { pipeline.snapshot }, pollLimit: configuration.pipeline.maxPollInterval)
        if skipsInvalidTokens {
            metrics.followTable(
                "invalid_tokens", entries: { invalidTokens.count }, bytes: { invalidTokens.storageBytes })
            registerTableCheck(
                "tables.invalid_tokens", in: readiness, table: invalidTokens,
                startWait: configuration.invalidTokensLoadTimeout, clock: clock)
        }

        // Started in this order, shut down in the reverse one: the pipeline drains first while the watchdog and the
        // sampler still watch it, then the producer closes, then the HTTP/2 clients, then the status server.
        var services: [ServiceGroup.Entry] = [
            .init("device store", ResourceService { closeRegistryStore() }),
            .init("status server", ResourceService { server.stop() }),
            adapters.transportsService,
            .init("producer", ResourceService { _ = await adapters.producer.close(timeout: .seconds(10)) }),
            .init(
                "kafka fatal errors",
                KafkaFatalErrorWatch(
                    consumers: [("consumer", source)] + (fanout.map { [("fan-out consumer", $0.source.inner)] } ?? []),
                    producer: adapters.producer, readiness: readiness, logger: logger
                )
                .service(clock: clock)),
            .init(
                "watchdog",
                WatchdogService(
                    watchdog: Watchdog(limit: configuration.pipeline.maxPollInterval, clock: clock),
                    lastPollMicros: { pipeline.snapshot.lastPollMicros }, observer: observer)),
            .init(
                "metrics sampler",
                MetricsSampler(metrics: metrics).service(
                    source: source, transports: adapters.transports, producer: adapters.producer, clock: clock)),
        ]
        if let path = configuration.rulesFile {
            services.append(
                .init(
                    "rules reloader",
                    RulesReloadService(
                        path: path, interval: configuration.rulesCheckInterval, planner: adapters.planner,
                        files: adapters.files, initial: adapters.rulesStamp, metrics: metrics, logger: logger,
                        clock: clock)
                ))
        }
        if let apps = adapters.apps, let settings = configuration.apps {
            services.append(
                .init(
                    "apps reloader",
                    AppsReloadService(
                        catalog: apps.catalog, senders: apps.senders, interval: settings.checkInterval,
                        metrics: apps.metrics, logger: logger, clock: clock)))
        }
        if skipsInvalidTokens {
            let follower = InvalidTokenFollower(
                configuration: configuration.kafka, topic: configuration.pipeline.invalidTokensTopic,
                table: invalidTokens)
            services.append(
                .init("invalid-token follower", InvalidTokenFollowerService(follower: follower, logger: logger)))
        }
        // The assigned scope holds its registry partitions in the fan-out stage, not the whole registry here.
        let followsRegistry = configuration.registry.store != .none && fanout == nil
        if followsRegistry {
            services.append(
                .init(
                    "registry follower",
                    RegistryFollowerService(
                        configuration: configuration.kafka, registry: configuration.registry, tables: registryTables,
                        logger: logger, loaded: registryLoaded)))
        }
        var pipelineService = PipelineService(
            pipeline: pipeline, readiness: readiness, logger: logger,
            invalidTokens: skipsInvalidTokens ? (invalidTokens, configuration.invalidTokensLoadTimeout) : nil,
            clock: clock, port: server.port)
        pipelineService.registry = followsRegistry ? (registryTables, configuration.registry.loadTimeout) : nil
        if let fanout {
            let directory = fanout.directory
            let resolvingFanout = IMKITPlanner(
                events: CustomPushPlanner(
                    events: adapters.planner, directory: directory, apps: adapters.appContexts,
                    decoder: CustomPushDecoder(limits: adapters.eventLimits)),
                directory: directory)
            let fanoutPipeline = Pipeline(
                source: fanout.source, sink: sink,
                planner: Self.skipping(
                    OwnPartitionPlanner(
                        inner: fanout.unsubscribing(resolvingFanout, placement: placement),
                        partitions: fanout.partitions), skipping),
                sender: adapters.sender, retryPolicy: configuration.retryDelays, clock: clock, observer: observer,
                settings: fanout.settings(configuration.pipeline), invalidations: invalidations)
            readiness.set("fanout.pipeline", passing: false, detail: "starting")
            readiness.register("registry.partitions") { fanout.registry.progress.health }
            metrics.exportStageAtZero(.fanout)
            metrics.followPipeline(stage: .fanout) { fanoutPipeline.snapshot }
            services += fanout.services(
                producer: adapters.producer, worker: configuration, pipeline: fanoutPipeline, observer: observer,
                metrics: metrics, clock: clock, logger: logger)
            var fanoutService = pipelineService
            fanoutService.pipeline = fanoutPipeline
            fanoutService.condition = "fanout.pipeline"
            services.append(.init("fan-out pipeline", fanoutService))
        }
        services.append(.init("pipeline", pipelineService))
        let group = ServiceGroup(
            services: services, shutdownBudget: configuration.shutdownBudget, exitCodes: WorkerExitCode.serviceGroup,
            report: logger.serviceGroupReport)
        return await group.run(signals: SignalSource())
    }

    /// `planner`, skipping the sends to tokens in the invalid-token table of `skipping` when given.
    private static func skipping<Planner: EventPlanner>(
        _ planner: Planner, _ skipping: (table: InvalidTokenTable, invalidations: TokenInvalidationWatch)?
    ) -> any EventPlanner<ProviderSend> where Planner.Request == ProviderSend {
        guard let skipping else { return planner }
        return SkippingKnownInvalidTokens(inner: planner, table: skipping.table, invalidations: skipping.invalidations)
    }

    /// The misconfiguration guard of `settings`' limits over a 5-minute window, with its gauge for `providers`.
    static func tokenInvalidationWatch(
        _ settings: PipelineSettings, metrics: PushMetrics, providers: [PushProvider], clock: some WallClock
    ) -> TokenInvalidationWatch {
        let watch = TokenInvalidationWatch(settings.invalidationGuard)
        metrics.followTokenInvalidations(watch, clock: clock, providers: providers)
        return watch
    }

    /// Registers the probes' checks (`WorkerHealth`) over the running adapters.
    private static func registerChecks(
        liveness: HealthChecks, readiness: HealthChecks, adapters: PipelineAdapters, source: KafkaRecordSource,
        clock: some WallClock, snapshot: @escaping @Sendable () -> PipelineSnapshot, pollLimit: Duration
    ) {
        let pollLoop: @Sendable () -> HealthCheckResult = {
            WorkerHealth.pollLoop(
                lastPollMicros: snapshot().lastPollMicros, nowMicros: clock.nowMicros(), limit: pollLimit)
        }
        let transports = adapters.transports
        let eventLoop: @Sendable () -> HealthCheckResult = {
            WorkerHealth.eventLoop(sinceLastTurn: transports.map(\.timeSinceLastTurn).max() ?? .zero)
        }
        // The loops in both probes: a stalled loop takes no work at once, and restarts the pod if it stays stalled.
        for probe in [liveness, readiness] {
            probe.register("poll_loop", pollLoop)
            probe.register("event_loop", eventLoop)
        }
        readiness.register("kafka.group") { WorkerHealth.group(source.health) }
        readiness.register("kafka.brokers") { WorkerHealth.brokers(source.health) }
        readiness.register("providers.breakers") {
            let now = snapshot()
            return WorkerHealth.breakers(open: now.openBreakers, openOrigins: now.openOriginBreakers)
        }
    }

    /// Registers the readiness check `name` of a table loaded from a compacted topic, started now.
    private static func registerTableCheck(
        _ name: String, in readiness: HealthChecks, table: InvalidTokenTable, startWait: Duration,
        clock: some WallClock
    ) {
        let startMicros = clock.nowMicros()
        let waitMicros = startWait.wholeMilliseconds.multipliedClamped(by: 1000)
        readiness.register(name) {
            WorkerHealth.table(
                loaded: table.isLoaded, entries: table.count,
                pastStartWait: clock.nowMicros() - startMicros > waitMicros)
        }
    }
}
