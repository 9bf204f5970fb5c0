import CLI
import HTTP2
import Kafka
import Lifecycle
import Observability
import Providers
import PushCore

/// `push-worker run`: reads the configuration, builds every stage, runs the pipeline until a signal,
/// and shuts down in reverse order. Returns the process exit code (`WorkerExitCode`).
public enum WorkerService {
    /// Runs the worker with `environment` and the optional `--config` file.
    public static func run(environment: [String: String], configFile: String?) async -> Int32 {
        let files = SystemFileReading()
        let variables: [String: String]
        let configuration: WorkerConfiguration
        let logger: Logger
        let statusConfiguration: StatusServerConfiguration
        do {
            variables = try self.variables(environment: environment, configFile: configFile, files: files)
            logger = Logger(label: "push-worker", level: try LogLevel.fromEnvironment(variables))
            configuration = try WorkerConfiguration.load(environment: variables)
            statusConfiguration = try StatusServerConfiguration.fromEnvironment(variables)
        } catch {
            return refuse(error)
        }
        logger.info("starting", metadata: ["config": .string(configuration.description)])
        if !configuration.ignoredKafkaVariables.isEmpty {
            // Kubernetes' service links (KAFKA_PORT=tcp://…) name no librdkafka property: never passed on.
            logger.warning(
                "KAFKA_* variables that name no librdkafka property ignored",
                metadata: ["kafka.ignored": .string(configuration.ignoredKafkaVariables.joined(separator: ","))])
        }

        let stages: Stages
        let source: KafkaRecordSource
        do {
            stages = try await Stages(configuration: configuration, files: files, logger: logger)
            let kafkaLogger = logger.with(["component": "kafka"])
            source = try await KafkaRecordSource(
                configuration: configuration.kafka,
                topics: configuration.pipeline.inputTopics + configuration.pipeline.retryTiers.topics,
                errorHandler: kafkaLogger.kafkaErrorHandler(), logHandler: kafkaLogger.kafkaLogHandler())
        } catch let error as InvalidSetting {
            return refuse(error)
        } catch {
            logger.critical("cannot start", metadata: ["error": .string(String(describing: error))])
            return WorkerExitCode.failure
        }
        return await serve(
            stages, source: source, configuration: configuration, status: statusConfiguration, logger: logger)
    }

    /// The environment with the `--config` file's `NAME=value` lines under it (the environment wins); the error
    /// names `--config` and what is wrong with the file.
    public static func variables(
        environment: [String: String], configFile: String?, files: some FileReading = SystemFileReading()
    ) throws(InvalidSetting) -> [String: String] {
        let fileVariables = try configFile.map { path throws(InvalidSetting) in
            try EnvironmentFile.parse(try readText(path, variable: "--config", files: files), path: path)
        }
        return (fileVariables ?? [:]).merging(environment) { _, fromEnvironment in fromEnvironment }
    }

    /// Prints the one line that names the bad setting.
    static func refuse(_ error: any Error) -> Int32 {
        StandardStreams.writeError("push-worker: \(error)")
        return WorkerExitCode.configuration
    }

    private static func readText(_ path: String, variable: String, files: some FileReading) throws(InvalidSetting)
        -> String
    {
        do {
            return String(decoding: try files.contents(of: path), as: UTF8.self)
        } catch {
            throw InvalidSetting(variable: variable, reason: "cannot read \(error)")
        }
    }

    /// Runs the pipeline with its status server, clients and helpers as one `ServiceGroup` until a signal or the
    /// end of one of them.
    private static func serve(
        _ stages: Stages, source: KafkaRecordSource, configuration: WorkerConfiguration,
        status: StatusServerConfiguration, logger: Logger
    ) async -> Int32 {
        let registry = MetricsRegistry()
        ProcessMetrics.register(in: registry)
        BuildInfo.register(in: registry, librdkafka: KafkaLibrary.version, libcurl: CurlLibrary.version)
        let metrics = PushMetrics(registry: registry)
        let liveness = HealthChecks()
        let readiness = HealthChecks()
        readiness.set("pipeline", passing: false, detail: "starting")
        let server: StatusServer
        do {
            server = try StatusServer.start(
                configuration: status, registry: registry, liveness: liveness, readiness: readiness, logger: logger)
        } catch {
            logger.critical("cannot start the status server", metadata: ["error": .string(error.description)])
            return WorkerExitCode.failure
        }
        let clock = SystemWorkerClock()
        let observer = ObservabilityObserver(
            logger: logger, metrics: metrics, readiness: readiness, providers: stages.sender.configuredProviders)
        let invalidTokens = InvalidTokenTable()
        let skipsInvalidTokens = configuration.pipeline.skipKnownInvalidTokens
        let planner: any EventPlanner<ProviderSend> =
            skipsInvalidTokens
            ? SkippingKnownInvalidTokens(inner: stages.planner, table: invalidTokens) : stages.planner
        let pipeline = Pipeline(
            source: source, sink: KafkaRecordSink(producer: stages.producer), planner: planner,
            sender: stages.sender, retryPolicy: configuration.retryDelays, clock: clock, observer: observer,
            settings: configuration.pipeline)

        registerChecks(
            liveness: liveness, readiness: readiness, stages: stages, source: source, observer: observer, clock: clock,
            lastPollMicros: { pipeline.lastPollMicros }, pollLimit: configuration.pipeline.maxPollInterval)

        // Started in this order, shut down in the reverse one: the pipeline drains first while the watchdog and the
        // sampler still watch it, then the producer closes, then the HTTP/2 clients, then the status server.
        var services: [ServiceGroup.Entry] = [
            .init("status server", ResourceService { server.stop() }),
            stages.transportsService,
            .init("producer", ResourceService { _ = await stages.producer.close(timeout: .seconds(10)) }),
            .init(
                "watchdog",
                WatchdogService(
                    watchdog: Watchdog(limit: configuration.pipeline.maxPollInterval, clock: clock), pipeline: pipeline,
                    observer: observer)),
            .init(
                "metrics sampler",
                MetricsSamplingService(
                    metrics: metrics, source: source, producer: stages.producer, pipeline: pipeline,
                    readiness: readiness, logger: logger, clock: clock)),
        ]
        if let path = configuration.rulesFile {
            services.append(
                .init(
                    "rules reloader",
                    RulesReloadService(
                        path: path, interval: configuration.rulesCheckInterval, planner: stages.planner,
                        files: stages.files, initial: stages.rulesStamp, metrics: metrics, logger: logger, clock: clock)
                ))
        }
        if skipsInvalidTokens {
            let follower = InvalidTokenFollower(
                configuration: configuration.kafka, topic: configuration.pipeline.invalidTokensTopic,
                table: invalidTokens)
            services.append(
                .init("invalid-token follower", InvalidTokenFollowerService(follower: follower, logger: logger)))
        }
        services.append(
            .init(
                "pipeline",
                PipelineService(
                    pipeline: pipeline, readiness: readiness, logger: logger,
                    invalidTokens: skipsInvalidTokens ? (invalidTokens, configuration.invalidTokensLoadTimeout) : nil,
                    clock: clock, port: server.port)))
        let group = ServiceGroup(
            services: services, shutdownBudget: configuration.shutdownBudget, report: logger.serviceGroupReport)
        return await group.run(signals: SignalSource())
    }

    /// Registers the probes' checks (`WorkerHealth`) over the running stages.
    private static func registerChecks(
        liveness: HealthChecks, readiness: HealthChecks, stages: Stages, source: KafkaRecordSource,
        observer: ObservabilityObserver,
        clock: some WorkerClock, lastPollMicros: @escaping @Sendable () -> Int64, pollLimit: Duration
    ) {
        liveness.register("poll_loop") {
            WorkerHealth.pollLoop(lastPollMicros: lastPollMicros(), nowMicros: clock.nowMicros(), limit: pollLimit)
        }
        let transports = stages.transports
        liveness.register("event_loop") {
            WorkerHealth.eventLoop(sinceLastTurn: transports.map(\.timeSinceLastTurn).max() ?? .zero)
        }
        readiness.register("kafka.group") { WorkerHealth.group(source.health) }
        readiness.register("kafka.brokers") { WorkerHealth.brokers(source.health) }
        readiness.register("providers.breakers") { WorkerHealth.breakers(open: observer.openBreakers) }
    }
}

/// Every stage that talks to the outside but the record source, built from the configuration before anything
/// runs: `run` adds the group consumer, `replay` a topic window.
struct Stages {
    let files: SystemFileReading
    let planner: CorePlanner
    let rulesStamp: FileStamp?
    let sender: ProviderSender
    let producer: KafkaProducer
    /// Every HTTP/2 client, shut down explicitly at the end (which also removes a combined CA file).
    let transports: [HTTP2Client]

    /// The HTTP/2 clients as one service: shut down explicitly at the group's end (which also removes a combined
    /// CA file), not left to `deinit`.
    var transportsService: ServiceGroup.Entry {
        let transports = transports
        return .init("http/2 clients", ResourceService { for transport in transports { await transport.shutdown() } })
    }

    init(configuration: WorkerConfiguration, files: SystemFileReading, logger: Logger) async throws {
        self.files = files
        var rules = RulesTable.standard
        if let path = configuration.rulesFile {
            rulesStamp = files.stamp(of: path)
            do {
                rules = try RulesTable.load(json: try files.contents(of: path))
            } catch {
                throw InvalidSetting(variable: "PUSH_RULES_FILE", reason: "\(path): \(error)")
            }
        } else {
            rulesStamp = nil
        }
        let transportConfiguration = HTTP2ClientConfiguration(
            maxStreamsPerConnection: 100, singleStreamUntilFirstSuccess: true,
            maxOutstandingRequests: configuration.pipeline.maxConcurrentSends, extraCAFile: configuration.caFile)
        let transport = try HTTP2Client(configuration: transportConfiguration)
        var transports = [transport]
        var apnsClient: APNsClient?
        if let apns = configuration.apns {
            let apnsTransport = try APNsClient.transport(
                for: apns, configuration: transportConfiguration, shared: transport)
            if apnsTransport !== transport { transports.append(apnsTransport) }
            apnsClient = try APNsClient(
                apns, requestDeadline: configuration.requestTimeout, transport: apnsTransport)
        }
        self.transports = transports
        var fcmClient: FCMClient?
        var projectID = ""
        if let fcm = configuration.fcm {
            let account: GoogleServiceAccount
            do {
                account = try GoogleServiceAccount(contentsOfFile: fcm.serviceAccountFile)
            } catch {
                throw error.naming("FCM_SERVICE_ACCOUNT_FILE")
            }
            do {
                try WorkerConfiguration.checkTransport(
                    of: account.tokenURI, variable: "token_uri", allowsHTTP: configuration.allowsInsecureHTTP)
            } catch {
                throw InvalidSetting(variable: "FCM_SERVICE_ACCOUNT_FILE", reason: "token_uri \(error.reason)")
            }
            projectID = account.projectId
            fcmClient = FCMClient(
                configuration: FCMConfiguration(baseURL: fcm.url, requestDeadline: configuration.requestTimeout),
                serviceAccount: account, transport: transport)
        }
        var decoder = EventDecoder()
        decoder.limits.maximumRecordBytes = configuration.maximumEventBytes
        planner = CorePlanner(
            rules: rules, context: ProviderContext(apnsTopic: configuration.apns?.topic ?? "", fcmProjectID: projectID),
            defaultLocale: configuration.defaultLocale, decoder: decoder)
        sender = ProviderSender(apns: apnsClient, fcm: fcmClient)
        let kafkaLogger = logger.with(["component": "kafka"])
        producer = try KafkaProducer(
            configuration: configuration.kafka, errorHandler: kafkaLogger.kafkaErrorHandler(),
            logHandler: kafkaLogger.kafkaLogHandler())
    }
}

extension APNsClient {
    /// The APNs client for `settings` over `transport` (see `apnsTransport`).
    fileprivate convenience init(
        _ settings: WorkerConfiguration.APNs, requestDeadline: Duration, transport: HTTP2Client
    ) throws {
        let authentication: APNsAuthentication
        switch settings.credentials {
        case .token(let keyFile, let keyID, let teamID):
            do {
                authentication = .token(try APNsSigningKey(contentsOfFile: keyFile, keyId: keyID, teamId: teamID))
            } catch {
                throw error.naming("APNS_KEY_FILE")
            }
        case .certificate:
            authentication = .certificate
        }
        self.init(
            configuration: APNsConfiguration(
                authentication: authentication, productionURL: settings.url, sandboxURL: settings.sandboxURL,
                requestDeadline: requestDeadline),
            transport: transport)
    }

    /// The transport for `settings`: `shared` for token auth, or one of its own for certificate auth (a client
    /// certificate belongs to every connection of its transport).
    fileprivate static func transport(
        for settings: WorkerConfiguration.APNs, configuration: HTTP2ClientConfiguration, shared: HTTP2Client
    ) throws -> HTTP2Client {
        guard case .certificate(let file, let keyFile, let password) = settings.credentials else { return shared }
        var certified = configuration
        certified.singleStreamUntilFirstSuccess = false  // APNs' one-stream rule is for token auth only
        certified.clientCertificate = ClientCertificate(
            certificateFile: file, keyFile: keyFile, keyPassword: password?.revealed)
        do {
            return try HTTP2Client(configuration: certified)
        } catch {
            // The message names the file that cannot be used, never the password.
            throw InvalidSetting(
                variable: error.message.contains(keyFile) && keyFile != file ? "APNS_CERT_KEY_FILE" : "APNS_CERT_FILE",
                reason: error.message)
        }
    }
}

extension ProviderConfigurationError {
    /// The error as a setting error for `variable`, without repeating the variable's name.
    fileprivate func naming(_ variable: String) -> InvalidSetting {
        InvalidSetting(variable: variable, reason: field == variable ? reason : description)
    }
}
