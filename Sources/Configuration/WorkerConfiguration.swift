public import Essentials
public import HTTP2
public import Kafka
public import Observability
import Providers
public import PushCore
public import PushPipeline

/// Everything `push-worker run` is configured with, read from environment variables (DESIGN.md's
/// table plus the tuning variables below) and validated before anything starts. Pure.
public struct WorkerConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// APNs credentials and endpoints.
    public struct APNs: Sendable, Equatable {
        /// How the worker authenticates to APNs: a `.p8` signing key, or a TLS client certificate.
        public enum Credentials: Sendable, Equatable {
            /// Token auth: `APNS_KEY_FILE`, `APNS_KEY_ID`, `APNS_TEAM_ID`.
            case token(keyFile: String, keyID: String, teamID: String)
            /// Certificate auth: `APNS_CERT_FILE`, `APNS_CERT_KEY_FILE`, optional `APNS_CERT_KEY_PASSWORD`.
            case certificate(file: String, keyFile: String, keyPassword: Secret<String>?)
        }

        public var url: String
        public var sandboxURL: String
        public var credentials: Credentials
        /// The app's bundle id (`apns-topic`), unless a device names its own.
        public var topic: String
    }

    /// FCM HTTP v1 endpoint and service account.
    public struct FCM: Sendable, Equatable {
        public var url: String
        public var serviceAccountFile: String
    }

    /// Web Push for the default app: its VAPID key file and subject, and where endpoints may point.
    public struct WebPush: Sendable, Equatable {
        /// `WEBPUSH_VAPID_KEY_FILE`: a PEM P-256 private key.
        public var keyFile: String
        /// `WEBPUSH_VAPID_SUBJECT`: a `mailto:` or `https:` contact.
        public var subject: String
    }

    /// librdkafka properties from `KAFKA_*` (bootstrap servers and group id included).
    public var kafka: KafkaConfiguration
    /// `KAFKA_*` variables that name no librdkafka property (Kubernetes' service links such as `KAFKA_PORT`):
    /// never passed to librdkafka, named in one warning at start.
    public var ignoredKafkaVariables: [String] = []
    /// `PUSH_ALLOW_INSECURE_HTTP=true`: provider and OAuth URLs may be `http://` (development only).
    public var allowsInsecureHTTP = false
    /// The pipeline's topics, identity and limits.
    public var pipeline: PipelineSettings
    /// The rules table file; `nil` for the built-in default table.
    public var rulesFile: String?
    /// The language of recipients without a `locale` (`PUSH_DEFAULT_LOCALE`); `nil` for the rules table's
    /// `defaultLocale`.
    public var defaultLocale: LanguageTag?
    /// How often the rules file is checked for changes.
    public var rulesCheckInterval: Duration
    public var apns: APNs?
    public var fcm: FCM?
    /// Web Push for the default app; `nil` without VAPID keys (its `web` devices are skipped, reason `platform`).
    public var webPush: WebPush?
    /// `WEBPUSH_ALLOW_PRIVATE_ENDPOINTS=true`: Web Push endpoints may be private, loopback and link-local IP literals
    /// on any port (tests, the demo), for every app.
    public var allowsPrivateWebPushEndpoints = false
    /// The apps of `PUSH_APPS_DIR`, each with its own credentials; `nil` for one app per deployment.
    public var apps: AppsConfiguration?
    /// Extra CA bundle to trust for provider connections.
    public var caFile: String?
    /// Which HTTP/2 transport carries the provider requests (`PUSH_HTTP_TRANSPORT`).
    public var httpTransport: HTTP2TransportKind
    /// How long the start waits for the invalid-token table to be read (`PUSH_INVALID_TOKENS_LOAD_MS`).
    public var invalidTokensLoadTimeout: Duration = .seconds(30)
    /// The device registry and client settings IMKIT messages are resolved through.
    public var registry = RegistryConfiguration()
    /// Whether recipients are resolved where a message is read or after a fan-out by client
    /// (`PUSH_REGISTRY_SCOPE`), and the fan-out's topic and group.
    public var fanout = FanoutConfiguration(group: "push-worker.fanout")

    /// The pipeline producer's librdkafka properties: `kafka`, with `allow.auto.create.topics=false` in the
    /// `assigned` scope (whatever `KAFKA_ALLOW_AUTO_CREATE_TOPICS` says), so that neither its metadata lookups nor its
    /// records create the fan-out topic with the broker's default partition count: the co-partitioning check reads
    /// the topics the operator created, and a missing one stops the start (exit 3).
    public var producerKafka: KafkaConfiguration {
        guard fanout.scope == .assigned else { return kafka }
        var producer = kafka
        producer.properties["allow.auto.create.topics"] = "false"
        return producer
    }
    /// The deadline of one provider request.
    public var requestTimeout: Duration
    /// Backoff of the first retry (doubling per attempt, with full jitter) and its ceiling.
    public var retryBase: Duration
    public var retryCap: Duration

    /// Reads and validates the configuration; `file` holds the `--config` file's variables, which
    /// the environment overrides. The error names the first bad variable.
    public static func load(environment: [String: String], file: [String: String] = [:]) throws(InvalidSetting)
        -> WorkerConfiguration
    {
        let reader = SettingReader(variables: file.merging(environment) { _, fromEnvironment in fromEnvironment })
        return try reader.workerConfiguration()
    }

    /// The largest event value accepted (larger ones are dead-lettered without being parsed): the producer's
    /// `message.max.bytes` (librdkafka's default 1,000,000 unless `KAFKA_MESSAGE_MAX_BYTES` says otherwise) less
    /// `EventLimits.deadLetterHeadroomBytes`, so that the event's own dead letter, headers included, fits; at
    /// least 1 KiB.
    public var maximumEventBytes: Int {
        EventLimits.maximumRecordBytes(
            messageMaxBytes: kafka["message.max.bytes"].flatMap { Int($0) } ?? EventLimits.producerMessageMaxBytes)
    }

    /// The configuration as `name=value` lines for the start-up log, secrets redacted.
    public var description: String {
        var lines = ["kafka: \(kafka)"]
        lines.append(
            "topics: in=\(pipeline.inputTopics.joined(separator: ",")) retry=\(pipeline.retryTiers.topics.joined(separator: ",")) "
                + "receipts=\(pipeline.receiptsTopic) dlq=\(pipeline.deadLetterTopic) "
                + "invalidTokens=\(pipeline.invalidTokensTopic)")
        lines.append("worker: \(pipeline.worker) group=\(pipeline.group)")
        lines.append("registry: scope=\(fanout.scope.rawValue) fanout=\(fanout.topic) fanoutGroup=\(fanout.group)")
        lines.append("rules: \(rulesFile ?? "<built-in>") defaultLocale=\(defaultLocale?.description ?? "<rules>")")
        if let apns {
            let credentials =
                switch apns.credentials {
                case .token(let keyFile, let keyID, let teamID): "key=\(keyFile) keyID=\(keyID) team=\(teamID)"
                case .certificate(let file, let keyFile, let password):
                    "cert=\(file) certKey=\(keyFile)\(password == nil ? "" : " certKeyPassword=<redacted>")"
                }
            lines.append("apns: url=\(apns.url) sandbox=\(apns.sandboxURL) \(credentials) topic=\(apns.topic)")
        }
        if let fcm { lines.append("fcm: url=\(fcm.url) serviceAccount=\(fcm.serviceAccountFile)") }
        if let webPush {
            lines.append(
                "webpush: vapidKey=\(webPush.keyFile) subject=\(webPush.subject) "
                    + "privateEndpoints=\(allowsPrivateWebPushEndpoints ? "allowed" : "refused")")
        }
        if let apps {
            lines.append(
                "apps: dir=\(apps.directory) checkMs=\(apps.checkInterval.wholeMilliseconds) maxLive=\(apps.maximumLiveApps) "
                    + "idleMs=\(apps.idleTimeout.wholeMilliseconds)")
        }
        if allowsInsecureHTTP { lines.append("insecure http: allowed (PUSH_ALLOW_INSECURE_HTTP)") }
        return lines.joined(separator: "\n")
    }
}

extension WorkerConfiguration {
    /// The delays of in-process retries: full-jitter backoff from `PUSH_RETRY_BASE_MS` doubling to
    /// `PUSH_RETRY_CAP_MS`.
    public var retryDelays: Backoff { Backoff(base: retryBase, cap: retryCap) }

    /// The one budget of the whole shutdown (README "Shutdown and rolling restarts"): the pipeline's grace period
    /// to finish or hand off in-flight work, then 10 s to flush the producer, 10 s to close the consumer and 10 s to
    /// stop the HTTP/2 clients and the status server. Past it the worker exits with `WorkerExitCode.forced`.
    public var shutdownBudget: Duration { pipeline.shutdownGracePeriod + .seconds(30) }

    /// Refuses a cleartext `http://` URL (a bearer token or provider token would travel unencrypted) unless
    /// `allowsHTTP` (`PUSH_ALLOW_INSECURE_HTTP=true`).
    package static func checkTransport(of url: String, variable: String, allowsHTTP: Bool) throws(InvalidSetting) {
        guard !url.lowercased().hasPrefix("https://") else { return }
        guard allowsHTTP, url.lowercased().hasPrefix("http://") else {
            throw InvalidSetting(
                variable: variable,
                reason: "'\(url)' is not https:// (set PUSH_ALLOW_INSECURE_HTTP=true to allow http:// in development)")
        }
    }
}

extension SettingReader {
    /// `push-worker run`'s and `replay`'s settings (DESIGN.md's table and the tuning variables).
    func workerConfiguration() throws(InvalidSetting) -> WorkerConfiguration {
        let environmentKafka = try kafkaProperties()
        var kafka = environmentKafka.configuration
        let bootstrap = try text("KAFKA_BOOTSTRAP_SERVERS", default: "localhost:9092")
        let group = try text("KAFKA_GROUP_ID", default: "push-worker")
        kafka.properties["bootstrap.servers"] = bootstrap
        try checkStatisticsInterval(kafka)
        kafka.properties["group.id"] = group

        let topics = try topicList("PUSH_TOPICS", default: ["chat.messages"])
        let receipts = try topic("PUSH_RECEIPTS_TOPIC", default: "push.receipts")
        let deadLetters = try topic("PUSH_DLQ_TOPIC", default: "push.dlq")
        let invalidTokens = try topic("PUSH_INVALID_TOKENS_TOPIC", default: "push.invalid-tokens")
        let retryTiers = try retryTiers()
        let outputs = [
            ("PUSH_RECEIPTS_TOPIC", receipts), ("PUSH_DLQ_TOPIC", deadLetters),
            ("PUSH_INVALID_TOKENS_TOPIC", invalidTokens),
        ]
        for (name, output) in outputs + retryTiers.topics.map({ ("PUSH_RETRY_TOPIC", $0) })
        where topics.contains(output) {
            throw InvalidSetting(variable: name, reason: "'\(output)' is also an input topic in PUSH_TOPICS")
        }
        guard Set(outputs.map(\.1) + retryTiers.topics).count == outputs.count + retryTiers.topics.count else {
            throw InvalidSetting(
                variable: "PUSH_RETRY_TOPIC",
                reason: "receipts, dead-letter, invalid-token and retry topics must all be different topics")
        }

        let worker = try workerID()
        var pipeline = PipelineSettings(
            inputTopics: topics, retryTiers: retryTiers, receiptsTopic: receipts, deadLetterTopic: deadLetters,
            group: group, worker: worker)
        pipeline.invalidTokensTopic = invalidTokens
        pipeline.skipKnownInvalidTokens = try flag("PUSH_SKIP_INVALID_TOKENS", default: true)
        pipeline.invalidationMaxRatio = try ratio("PUSH_INVALIDATION_MAX_RATIO", default: pipeline.invalidationMaxRatio)
        pipeline.invalidationMinSends = try integer(
            "PUSH_INVALIDATION_MIN_SENDS", default: pipeline.invalidationMinSends, in: 1...1_000_000_000)
        pipeline.batchSize = try integer("PUSH_BATCH_SIZE", default: pipeline.batchSize, in: 1...100_000)
        pipeline.maxInFlightRecords = try integer(
            "PUSH_MAX_IN_FLIGHT", default: pipeline.maxInFlightRecords, in: 1...1_000_000)
        pipeline.maxInFlightDevices = try integer(
            "PUSH_MAX_IN_FLIGHT_DEVICES", default: pipeline.maxInFlightDevices, in: 1...10_000_000)
        pipeline.maxConcurrentSends = try integer(
            "PUSH_MAX_CONCURRENT_SENDS", default: pipeline.maxConcurrentSends, in: 1...100_000)
        pipeline.maxSendsPerProvider = try integer(
            "PUSH_MAX_SENDS_PER_PROVIDER", default: pipeline.maxSendsPerProvider, in: 1...100_000)
        pipeline.maxSendsPerOrigin = try integer(
            "WEBPUSH_MAX_SENDS_PER_ORIGIN", default: pipeline.maxSendsPerOrigin, in: 1...100_000)
        pipeline.retryBudget = try milliseconds(
            "PUSH_RETRY_BUDGET_MS", default: pipeline.retryBudget, in: 0...3_600_000)
        pipeline.roomOrder = try choice("PUSH_ROOM_ORDER", default: RoomOrdering.strict)
        pipeline.maxAttempts = try integer("PUSH_MAX_ATTEMPTS", default: pipeline.maxAttempts, in: 1...100)
        pipeline.providerFailureThreshold = try integer(
            "PUSH_PROVIDER_FAILURE_THRESHOLD", default: pipeline.providerFailureThreshold, in: 1...1_000_000)
        pipeline.probeInterval = try milliseconds(
            "PUSH_PROBE_INTERVAL_MS", default: pipeline.probeInterval, in: 10...3_600_000)
        pipeline.shutdownGracePeriod = .seconds(
            try integer(
                "PUSH_SHUTDOWN_GRACE_SECONDS", default: Int(pipeline.shutdownGracePeriod.components.seconds),
                in: 0...3600))
        pipeline.maxPollInterval = try milliseconds(
            "KAFKA_MAX_POLL_INTERVAL_MS", default: pipeline.maxPollInterval, in: 1...86_400_000)
        pipeline.revokeDrainTimeout = try milliseconds(
            "PUSH_REVOKE_DRAIN_MS", default: min(pipeline.revokeDrainTimeout, pipeline.maxPollInterval / 2),
            in: 0...86_400_000)
        guard pipeline.revokeDrainTimeout < pipeline.maxPollInterval else {
            throw InvalidSetting(
                variable: "PUSH_REVOKE_DRAIN_MS", reason: "must be shorter than KAFKA_MAX_POLL_INTERVAL_MS")
        }

        let retryBase = try milliseconds("PUSH_RETRY_BASE_MS", default: .milliseconds(500), in: 1...3_600_000)
        let retryCap = try milliseconds("PUSH_RETRY_CAP_MS", default: .seconds(300), in: 1...86_400_000)
        guard retryCap >= retryBase else {
            throw InvalidSetting(variable: "PUSH_RETRY_CAP_MS", reason: "must not be less than PUSH_RETRY_BASE_MS")
        }

        let allowsInsecureHTTP = try flag("PUSH_ALLOW_INSECURE_HTTP", default: false)
        let urls = providerURLs(allowsInsecureHTTP: allowsInsecureHTTP)
        let apns = try apnsSettings(urls: urls)
        let fcm = try fcmSettings(urls: urls)
        let apps = try appsConfiguration(urls: urls)
        let webPush = try webPushSettings()
        guard apns != nil || fcm != nil || webPush != nil || apps != nil else {
            if let first = absentProviders.first {
                throw InvalidSetting(
                    variable: first.variable,
                    reason: "no provider configured: " + absentProviders.map(\.description).joined(separator: "; "))
            }
            throw InvalidSetting(
                variable: "APNS_KEY_FILE",
                reason: "no provider configured: set APNS_TOPIC with APNS_KEY_FILE, APNS_KEY_ID and APNS_TEAM_ID "
                    + "(or APNS_CERT_FILE and APNS_CERT_KEY_FILE), or FCM_SERVICE_ACCOUNT_FILE, or PUSH_APPS_DIR")
        }
        var configuration = WorkerConfiguration(
            kafka: kafka, pipeline: pipeline, rulesFile: optional("PUSH_RULES_FILE"),
            defaultLocale: try languageTag("PUSH_DEFAULT_LOCALE"),
            rulesCheckInterval: try milliseconds("PUSH_RULES_CHECK_MS", default: .seconds(5), in: 100...3_600_000),
            apns: apns, fcm: fcm, caFile: optional("PUSH_CA_FILE"),
            httpTransport: try choice("PUSH_HTTP_TRANSPORT", default: HTTP2TransportKind.nghttp2),
            requestTimeout: try milliseconds("PUSH_REQUEST_TIMEOUT_MS", default: .seconds(10), in: 100...600_000),
            retryBase: retryBase, retryCap: retryCap)
        configuration.ignoredKafkaVariables = environmentKafka.ignored
        configuration.apps = apps
        configuration.webPush = webPush
        configuration.allowsPrivateWebPushEndpoints = try flag("WEBPUSH_ALLOW_PRIVATE_ENDPOINTS", default: false)
        configuration.allowsInsecureHTTP = allowsInsecureHTTP
        configuration.invalidTokensLoadTimeout = try milliseconds(
            "PUSH_INVALID_TOKENS_LOAD_MS", default: configuration.invalidTokensLoadTimeout, in: 0...3_600_000)
        configuration.registry = try registryConfiguration(inputTopics: topics)
        configuration.fanout = try fanoutConfiguration(
            group: group,
            taken: topics.map { ("PUSH_TOPICS", $0) } + outputs + retryTiers.topics.map { ("PUSH_RETRY_TOPIC", $0) }
                + [
                    ("PUSH_DEVICES_TOPIC", configuration.registry.devicesTopic),
                    ("PUSH_CLIENTS_TOPIC", configuration.registry.clientsTopic),
                ])
        return configuration
    }

    /// The statistics interval readiness and lag can live with: `/readyz` reads the group and broker state from
    /// librdkafka's statistics, so with `statistics.interval.ms=0` (statistics off) a pod would never be ready, and
    /// with an hour it would wait an hour.
    static let statisticsIntervalRange = 100...60_000

    /// Refuses a `KAFKA_STATISTICS_INTERVAL_MS` outside `statisticsIntervalRange`.
    private func checkStatisticsInterval(_ kafka: KafkaConfiguration) throws(InvalidSetting) {
        guard let text = kafka["statistics.interval.ms"] else { return }
        let range = Self.statisticsIntervalRange
        guard let millis = Int(text), range.contains(millis) else {
            throw InvalidSetting(
                variable: "KAFKA_STATISTICS_INTERVAL_MS",
                reason: "'\(text)' is not from \(range.lowerBound) to \(range.upperBound): readiness (/readyz) and "
                    + "lag are read from librdkafka's statistics")
        }
    }

    /// The longest worker name, in bytes: a Kubernetes pod name (a DNS subdomain) is at most 253 characters.
    static let maximumWorkerIDBytes = 253

    /// `PUSH_WORKER_ID`, else `HOSTNAME` (the pod's name), else `push-worker`: 1 to 253 bytes without spaces or
    /// control characters, as it goes into every receipt and `x-worker` header.
    private func workerID() throws(InvalidSetting) -> String {
        let variable = optional("PUSH_WORKER_ID") != nil ? "PUSH_WORKER_ID" : "HOSTNAME"
        let worker = try text(variable, default: "push-worker")
        guard worker.utf8.count <= Self.maximumWorkerIDBytes,
            !worker.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw InvalidSetting(
                variable: variable,
                reason: "the worker's name must be 1 to \(Self.maximumWorkerIDBytes) bytes without control characters")
        }
        return worker
    }

    /// `PUSH_RETRY_TOPIC` (the base name) and `PUSH_RETRY_TIERS` (delays like `1s,10s,1m`, ascending).
    private func retryTiers() throws(InvalidSetting) -> RetryTiers {
        let base = try topic("PUSH_RETRY_TOPIC", default: "push.retry")
        var delays: [Duration] = []
        if let list = optional("PUSH_RETRY_TIERS") {
            for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                let text = item.filter { !$0.isWhitespace }
                guard let delay = Self.duration(text), delay <= .seconds(86_400) else {
                    throw InvalidSetting(
                        variable: "PUSH_RETRY_TIERS",
                        reason: "'\(text)' is not a delay from 1ms to 24h like 500ms, 10s, 5m or 1h")
                }
                guard delays.last.map({ $0 < delay }) ?? true else {
                    throw InvalidSetting(variable: "PUSH_RETRY_TIERS", reason: "delays must be in ascending order")
                }
                delays.append(delay)
            }
            guard (1...20).contains(delays.count) else {
                throw InvalidSetting(variable: "PUSH_RETRY_TIERS", reason: "names \(delays.count) delays, not 1 to 20")
            }
        }
        let tiers = RetryTiers(base: base, delays: delays.isEmpty ? RetryTiers.defaultDelays : delays)
        for topic in tiers.topics { try checkTopicName(topic, variable: "PUSH_RETRY_TOPIC") }
        return tiers
    }

    /// A whole number with the unit `ms`, `s`, `m` or `h`, at least 1 ms; nil otherwise.
    private static func duration(_ text: String) -> Duration? {
        // `ms` before `s`: the first unit the text ends with.
        let units: [(suffix: String, millis: Int)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        guard let unit = units.first(where: { text.hasSuffix($0.suffix) }),
            let count = Int(text.dropLast(unit.suffix.count)), count >= 1, count <= 86_400_000
        else { return nil }
        return .milliseconds(count * unit.millis)
    }

    private static let apnsTokenVariables = ["APNS_KEY_FILE", "APNS_KEY_ID", "APNS_TEAM_ID"]
    private static let apnsCertificateVariables = ["APNS_CERT_FILE", "APNS_CERT_KEY_FILE"]

    /// APNs is configured when any of its credential variables or `APNS_TOPIC` is set; then exactly one kind of
    /// credentials, complete, and the topic.
    private func apnsSettings(urls: ProviderURLs) throws(InvalidSetting) -> WorkerConfiguration.APNs? {
        let usesToken = Self.apnsTokenVariables.contains { optional($0) != nil }
        let usesCertificate = (Self.apnsCertificateVariables + ["APNS_CERT_KEY_PASSWORD"]).contains {
            optional($0) != nil
        }
        guard usesToken || usesCertificate || optional("APNS_TOPIC") != nil else { return nil }
        let credentials: WorkerConfiguration.APNs.Credentials
        switch (usesToken, usesCertificate) {
        case (true, true):
            throw InvalidSetting(
                variable: "APNS_CERT_FILE",
                reason: "set either APNS_KEY_FILE, APNS_KEY_ID and APNS_TEAM_ID (token auth) or APNS_CERT_FILE and "
                    + "APNS_CERT_KEY_FILE (certificate auth), not both")
        case (false, false):
            throw InvalidSetting(
                variable: "APNS_KEY_FILE",
                reason: "APNS_TOPIC is set but no APNs credentials: set APNS_KEY_FILE, APNS_KEY_ID and APNS_TEAM_ID "
                    + "(token auth) or APNS_CERT_FILE and APNS_CERT_KEY_FILE (certificate auth)")
        case (true, false):
            let values = try required(Self.apnsTokenVariables)
            credentials = .token(keyFile: values[0], keyID: values[1], teamID: values[2])
        case (false, true):
            let values = try required(Self.apnsCertificateVariables)
            credentials = .certificate(
                file: values[0], keyFile: values[1], keyPassword: optional("APNS_CERT_KEY_PASSWORD").map(Secret.init))
        }
        guard let topic = optional("APNS_TOPIC"), !topic.contains(where: \.isWhitespace) else {
            throw InvalidSetting(
                variable: "APNS_TOPIC", reason: "the app's bundle id is required with APNs credentials")
        }
        return WorkerConfiguration.APNs(
            url: try urls.apns.get(), sandboxURL: try urls.apnsSandbox.get(),
            credentials: credentials, topic: topic)
    }

    /// The values of `names`, each required (as the set they belong to is in use) and without spaces.
    private func required(_ names: [String]) throws(InvalidSetting) -> [String] {
        var values: [String] = []
        for name in names {
            guard let value = optional(name) else {
                throw InvalidSetting(
                    variable: name, reason: "required with \(names.filter { $0 != name }.joined(separator: ", "))")
            }
            guard !value.contains(where: \.isWhitespace) else {
                throw InvalidSetting(variable: name, reason: "must not contain spaces")
            }
            values.append(value)
        }
        return values
    }

    /// Web Push needs both `WEBPUSH_VAPID_KEY_FILE` and `WEBPUSH_VAPID_SUBJECT`; neither leaves it out.
    private func webPushSettings() throws(InvalidSetting) -> WorkerConfiguration.WebPush? {
        let keyFile = optional("WEBPUSH_VAPID_KEY_FILE")
        let subject = optional("WEBPUSH_VAPID_SUBJECT")
        switch (keyFile, subject) {
        case (nil, nil): return nil
        case (nil, _?):
            throw InvalidSetting(
                variable: "WEBPUSH_VAPID_KEY_FILE", reason: "is unset but WEBPUSH_VAPID_SUBJECT is set")
        case (_?, nil):
            throw InvalidSetting(
                variable: "WEBPUSH_VAPID_SUBJECT", reason: "is unset but WEBPUSH_VAPID_KEY_FILE is set")
        case (let keyFile?, let subject?):
            return WorkerConfiguration.WebPush(keyFile: keyFile, subject: subject)
        }
    }

    private func fcmSettings(urls: ProviderURLs) throws(InvalidSetting) -> WorkerConfiguration.FCM? {
        guard let file = optional("FCM_SERVICE_ACCOUNT_FILE") else { return nil }
        return WorkerConfiguration.FCM(
            url: try urls.fcm.get(),
            serviceAccountFile: file)
    }
}
