import Configuration
import Essentials
import HTTP2
import Kafka
import Lifecycle
import Observability
import Providers
import PushCore
import PushPipeline
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
            maxStreamsPerConnection: 100, singleStreamUntilFirstSuccess: true,
            maxOutstandingRequests: configuration.pipeline.maxConcurrentSends, extraCAFile: configuration.caFile)
        let transport = try configuration.httpTransport.make(transportConfiguration)
        var transports = [transport]
        // The default app and the app folders share one provider token per APNs key.
        let signers = APNsTokenSigners()
        let webPushPolicy = WebPushEndpointPolicy(
            allowsPrivateEndpoints: configuration.allowsPrivateWebPushEndpoints)
        let factory = ProviderClientFactory(
            transport: transport, signers: signers, requestDeadline: configuration.requestTimeout,
            webPushPolicy: webPushPolicy, clock: SystemWallClock())
        var apnsClient: APNsClient?
        if let apns = configuration.apns {
            let apnsTransport = try APNsClient.transport(
                certificate: credentials.apnsClientCertificate, configuration: transportConfiguration,
                shared: transport, kind: configuration.httpTransport)
            if apnsTransport !== transport { transports.append(apnsTransport) }
            apnsClient = factory.apns(
                credentials.apnsSigningKey.map { .token($0.revealed) } ?? .certificate, url: apns.url,
                sandboxURL: apns.sandboxURL, over: apnsTransport)
        }
        self.transports = transports
        var fcmClient: FCMClient?
        var projectID = ""
        if let fcm = configuration.fcm, let account = credentials.googleServiceAccount?.revealed {
            projectID = account.projectId
            fcmClient = factory.fcm(url: fcm.url, serviceAccount: account)
        }
        let webPushClient = credentials.vapidKey.map { factory.webPush(vapid: $0.revealed) }
        var decoder = EventDecoder()
        decoder.limits.maximumRecordBytes = configuration.maximumEventBytes
        let context = ProviderContext(
            apnsTopic: configuration.apns?.topic ?? "", fcmProjectID: projectID, sendsWebPush: webPushClient != nil)
        eventLimits = decoder.limits
        if let settings = configuration.apps {
            let metrics = AppMetrics(registry: registry, labelLimit: settings.maximumLabelledApps)
            let catalog = AppCatalog(
                configuration: settings, allowsInsecureHTTP: configuration.allowsInsecureHTTP,
                defaultContext: context, files: files, metrics: metrics, logger: logger)
            let changes = catalog.refresh()
            AppsReloadService.log(changes, logger: logger)
            metrics.count(changes)
            apps = AppFolders(
                catalog: catalog,
                senders: AppSenders(
                    catalog: catalog, transport: transport, signers: signers,
                    requestDeadline: configuration.requestTimeout,
                    webPushPolicy: webPushPolicy,
                    maximumLiveApps: settings.maximumLiveApps, idleTimeout: settings.idleTimeout, metrics: metrics),
                metrics: metrics)
        } else {
            apps = nil
        }
        appContexts = apps?.catalog ?? SingleApp(context)
        planner = CorePlanner(
            rules: rules.table, apps: appContexts,
            defaultLocale: configuration.defaultLocale, decoder: decoder)
        sender = ProviderSender(apns: apnsClient, fcm: fcmClient, webPush: webPushClient, apps: apps?.senders)
        let kafkaLogger = logger.with(["component": "kafka"])
        producer = try KafkaProducer(
            configuration: configuration.kafka, errorHandler: kafkaLogger.kafkaErrorHandler(),
            logHandler: kafkaLogger.kafkaLogHandler())
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
    package let metrics: AppMetrics
}

extension APNsClient {
    /// The transport for APNs: `shared` for token auth, or one of its own for certificate auth (a client
    /// certificate belongs to every connection of its transport).
    fileprivate static func transport(
        certificate: Secret<ClientCertificate>?, configuration: HTTP2TransportConfiguration,
        shared: any HTTP2Transport, kind: HTTP2TransportKind
    ) throws -> any HTTP2Transport {
        guard let certificate else { return shared }
        var certified = configuration
        certified.singleStreamUntilFirstSuccess = false  // APNs' one-stream rule is for token auth only
        certified.clientCertificate = certificate.revealed
        return try kind.make(certified)
    }
}
