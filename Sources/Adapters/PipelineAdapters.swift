public import Configuration
import Essentials
public import HTTP2
public import Kafka
public import Lifecycle
public import Observability
import Providers
public import PushCore
public import PushPipeline
import Synchronization

/// The adapters behind the pipeline's planner, sender and sink ports (the rules' planner with the apps' contexts,
/// the provider sender over its HTTP/2 transports, the Kafka producer), built from the configuration before
/// anything runs. What a command adds is its record source: `run` the group consumer, `replay` a topic window.
public struct PipelineAdapters: Sendable {
    public let files: SystemFileReading
    public let planner: CorePlanner
    /// The APNs topic and FCM project of each app (the default's, and with `PUSH_APPS_DIR` each folder's), for the
    /// requests built without a rule too (custom pushes).
    public let appContexts: any AppContexts
    /// The input records' limits, the same for every record kind.
    public let eventLimits: EventLimits
    public let rulesStamp: FileStamp?
    public let sender: ProviderSender
    public let producer: KafkaProducer
    /// The apps of `PUSH_APPS_DIR` and their clients, when it is set.
    package let apps: AppFolders?
    /// Every HTTP/2 client, shut down explicitly at the end (which also removes a combined CA file).
    public let transports: [any HTTP2Transport]
    /// Whether the transports were shut down: by the group's service or at the end of `withPipelineAdapters`.
    private let transportsStopped = StopFlag()

    /// The HTTP/2 clients as one service: shut down explicitly at the group's end (which also removes a combined
    /// CA file), not left to `deinit`.
    public var transportsService: ServiceGroup.Entry {
        .init("http/2 clients", ResourceService { [self] in await shutDownTransports() })
    }

    /// Shuts every HTTP/2 client down, once: a later call returns at once.
    func shutDownTransports() async {
        guard transportsStopped.claim() else { return }
        for transport in transports { await transport.shutdown() }
    }

    init(
        configuration: WorkerConfiguration, rules: StartingRules, credentials: ProviderCredentials,
        files: SystemFileReading, logger: Logger, registry: MetricsRegistry = MetricsRegistry()
    ) async throws {
        self.files = files
        rulesStamp = rules.stamp
        let transportConfiguration = HTTP2TransportConfiguration(
            maxStreamsPerConnection: 100,
            maxOutstandingRequests: configuration.pipeline.maxConcurrentSends, extraCAFile: configuration.caFile,
            keptResponseHeaders: KeptResponseHeaders(ProviderResponseHeader.read))
        let transport = try configuration.httpTransport.make(transportConfiguration)
        // The APNs client certificate belongs to every connection of a transport of its own.
        let certificateTransport = try credentials.apnsClientCertificate.map {
            try APNsClient.transport(
                certificate: $0, configuration: transportConfiguration, kind: configuration.httpTransport)
        }
        transports = [transport] + (certificateTransport.map { [$0] } ?? [])
        let factory = ProviderClientFactory(
            transport: transport, certificateTransport: certificateTransport, signers: APNsTokenSigners(),
            requestDeadline: configuration.requestTimeout,
            webPushPolicy: WebPushEndpointPolicy(allowsPrivateEndpoints: configuration.allowsPrivateWebPushEndpoints),
            clock: SystemWallClock())
        let defaultApp = AppCredentials(defaultAppOf: configuration, credentials: credentials)
        var decoder = EventDecoder()
        decoder.limits.maximumRecordBytes = configuration.maximumEventBytes
        eventLimits = decoder.limits
        var catalog: AppCatalog?
        if let settings = configuration.apps {
            let metrics = AppMetrics(registry: registry, labelLimit: settings.maximumLabelledApps)
            let folders = AppCatalog(
                configuration: settings, allowsInsecureHTTP: configuration.allowsInsecureHTTP,
                defaultContext: defaultApp.context, files: files, metrics: metrics, logger: logger)
            let changes = folders.refresh()
            AppsReloadService.log(changes, logger: logger)
            metrics.count(changes)
            catalog = folders
        }
        let senders = AppSenders(defaultApp: defaultApp, folders: catalog, factory: factory)
        apps = catalog.map { AppFolders(catalog: $0, senders: senders) }
        appContexts = catalog ?? SingleApp(defaultApp.context)
        planner = CorePlanner(
            rules: rules.table, apps: appContexts,
            defaultLocale: configuration.defaultLocale, decoder: decoder)
        sender = ProviderSender(apps: senders)
        let kafkaLogger = logger.with(["component": "kafka"])
        producer = try KafkaProducer(
            configuration: configuration.producerKafka, errorHandler: kafkaLogger.kafkaErrorHandler(),
            logHandler: kafkaLogger.kafkaLogHandler(), holdsWhileInFlight: true)
    }
}

/// Builds the pipeline's adapters, runs `body` with them and shuts their HTTP/2 clients down when it returns or
/// throws, in the manner of async-http-client's `withHTTPClient`: no path out of `body` has to. Where a service group
/// already shut them down in its order (`transportsService`), the end of the scope does nothing more. Throws what
/// building the adapters throws, and what `body` throws.
public func withPipelineAdapters<Result>(
    configuration: WorkerConfiguration, rules: StartingRules, credentials: ProviderCredentials,
    files: SystemFileReading, logger: Logger, registry: MetricsRegistry = MetricsRegistry(),
    _ body: (PipelineAdapters) async throws -> Result
) async throws -> Result {
    let adapters = try await PipelineAdapters(
        configuration: configuration, rules: rules, credentials: credentials, files: files, logger: logger,
        registry: registry)
    do {
        let result = try await body(adapters)
        await adapters.shutDownTransports()
        return result
    } catch {
        await adapters.shutDownTransports()
        throw error
    }
}

/// A flag that one caller claims.
private final class StopFlag: Sendable {
    private let claimed = Mutex(false)

    /// True for the first call only.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}

/// The apps of `PUSH_APPS_DIR`: their catalog, the provider clients of those in use, and their metrics.
package struct AppFolders: Sendable {
    package let catalog: AppCatalog
    package let senders: AppSenders
    package var metrics: AppMetrics { catalog.metrics }
}

extension APNsClient {
    /// The transport of APNs certificate auth, presenting `certificate` on every connection.
    fileprivate static func transport(
        certificate: Secret<ClientCertificate>, configuration: HTTP2TransportConfiguration, kind: HTTP2TransportKind
    ) throws -> any HTTP2Transport {
        var certified = configuration
        certified.clientCertificate = certificate.revealed
        return try kind.make(certified)
    }
}
