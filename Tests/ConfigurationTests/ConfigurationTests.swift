import HTTP2
import Kafka
import Observability
import PushCore
import PushPipeline
import Testing

@testable import Configuration

@Suite struct ConfigurationTests {
    static let fcmOnly = ["FCM_SERVICE_ACCOUNT_FILE": "/secrets/sa.json"]
    static let apnsOnly = [
        "APNS_KEY_FILE": "/secrets/key.p8", "APNS_KEY_ID": "ABC123DEFG", "APNS_TEAM_ID": "TEAM123456",
        "APNS_TOPIC": "com.example.chat",
    ]

    @Test func defaultsFollowTheDesign() throws {
        let configuration = try WorkerConfiguration.load(
            environment: Self.fcmOnly.merging(["HOSTNAME": "pod-7"]) { $1 })
        #expect(configuration.kafka["bootstrap.servers"] == "localhost:9092")
        #expect(configuration.kafka["group.id"] == "push-worker")
        #expect(configuration.pipeline.inputTopics == ["chat.messages"])
        #expect(configuration.pipeline.receiptsTopic == "push.receipts")
        #expect(configuration.pipeline.deadLetterTopic == "push.dlq")
        #expect(
            configuration.pipeline.retryTiers.topics == [
                "push.retry-1000", "push.retry-10000", "push.retry-60000", "push.retry-600000", "push.retry-3600000",
            ])
        #expect(configuration.pipeline.roomOrder == .strict)
        #expect(configuration.httpTransport == .nghttp2)
        #expect(configuration.pipeline.worker == "pod-7")
        #expect(configuration.fcm?.url == "https://fcm.googleapis.com")
        #expect(configuration.apns == nil)
        #expect(configuration.rulesFile == nil)
        #expect(configuration.defaultLocale == nil)
    }

    @Test func theDefaultLocaleIsALanguageTagInCanonicalCase() throws {
        let configuration = try WorkerConfiguration.load(
            environment: Self.fcmOnly.merging(["PUSH_DEFAULT_LOCALE": "zh-hant-tw"]) { $1 })
        #expect(configuration.defaultLocale?.description == "zh-Hant-TW")
    }

    @Test func readsEveryProviderAndKafkaSetting() throws {
        let environment = Self.apnsOnly.merging([
            "APNS_URL": "https://127.0.0.1:8443/", "KAFKA_SASL_MECHANISM": "PLAIN", "PUSH_TOPICS": "a, b",
            "PUSH_MAX_IN_FLIGHT": "50", "PUSH_MAX_IN_FLIGHT_DEVICES": "700", "PUSH_RETRY_BUDGET_MS": "2500",
            "PUSH_WORKER_ID": "w-1",
            "PUSH_ROOM_ORDER": "first-attempt", "PUSH_RETRY_TOPIC": "retries", "PUSH_RETRY_TIERS": "500ms, 30s,2m,24h",
            "PUSH_HTTP_TRANSPORT": "nghttp2",
        ]) { $1 }
        let configuration = try WorkerConfiguration.load(environment: environment)
        #expect(configuration.apns?.url == "https://127.0.0.1:8443")
        #expect(configuration.apns?.sandboxURL == "https://api.sandbox.push.apple.com")
        #expect(configuration.apns?.topic == "com.example.chat")
        #expect(configuration.kafka["sasl.mechanism"] == "PLAIN")
        #expect(configuration.pipeline.inputTopics == ["a", "b"])
        #expect(configuration.pipeline.maxInFlightRecords == 50)
        #expect(configuration.pipeline.maxInFlightDevices == 700)
        #expect(configuration.pipeline.retryBudget == .milliseconds(2500))
        #expect(configuration.pipeline.worker == "w-1")
        #expect(configuration.pipeline.roomOrder == .firstAttempt)
        #expect(configuration.httpTransport == .nghttp2)
        #expect(
            configuration.pipeline.retryTiers.topics == [
                "retries-500", "retries-30000", "retries-120000", "retries-86400000",
            ])
    }

    @Test(arguments: [
        (["PUSH_MAX_IN_FLIGHT": "lots"], "PUSH_MAX_IN_FLIGHT"),
        (["PUSH_BATCH_SIZE": "0"], "PUSH_BATCH_SIZE"),
        (["PUSH_TOPICS": " , "], "PUSH_TOPICS"),
        (["PUSH_TOPICS": "bad topic!"], "PUSH_TOPICS"),
        (["PUSH_RECEIPTS_TOPIC": "chat.messages"], "PUSH_RECEIPTS_TOPIC"),
        (["PUSH_DLQ_TOPIC": "push.retry-60000"], "PUSH_RETRY_TOPIC"),
        (["PUSH_TOPICS": "chat,push.retry-1000"], "PUSH_RETRY_TOPIC"),
        (["PUSH_ROOM_ORDER": "loose"], "PUSH_ROOM_ORDER"),
        (["PUSH_HTTP_TRANSPORT": "h2"], "PUSH_HTTP_TRANSPORT"),
        (["PUSH_RETRY_TIERS": "10s,1s"], "PUSH_RETRY_TIERS"),
        (["PUSH_RETRY_TIERS": "1s,1s"], "PUSH_RETRY_TIERS"),
        (["PUSH_RETRY_TIERS": "1s,,10s"], "PUSH_RETRY_TIERS"),
        (["PUSH_RETRY_TIERS": "0s"], "PUSH_RETRY_TIERS"),
        (["PUSH_RETRY_TIERS": "25h"], "PUSH_RETRY_TIERS"),
        (["PUSH_RETRY_TIERS": "5 minutes"], "PUSH_RETRY_TIERS"),
        (["PUSH_RETRY_TIERS": "9223372036854775807h"], "PUSH_RETRY_TIERS"),
        (["FCM_URL": "fcm.googleapis.com"], "FCM_URL"),
        (["KAFKA_MAX_POLL_INTERVAL_MS": "10000", "PUSH_REVOKE_DRAIN_MS": "20000"], "PUSH_REVOKE_DRAIN_MS"),
        (["PUSH_RETRY_BASE_MS": "1000", "PUSH_RETRY_CAP_MS": "10"], "PUSH_RETRY_CAP_MS"),
        // A request with 50 ms or less left is never sent: a smaller deadline would send nothing.
        (["PUSH_REQUEST_TIMEOUT_MS": "50"], "PUSH_REQUEST_TIMEOUT_MS"),
        (["APNS_KEY_FILE": "/k.p8"], "APNS_KEY_ID"),
        (["KAFKA_GROUP_ID": "two words"], "KAFKA_GROUP_ID"),
        (["PUSH_DEFAULT_LOCALE": "korean!"], "PUSH_DEFAULT_LOCALE"),
        (["PUSH_INVALIDATION_MAX_RATIO": "0"], "PUSH_INVALIDATION_MAX_RATIO"),
        (["PUSH_INVALIDATION_MAX_RATIO": "1.5"], "PUSH_INVALIDATION_MAX_RATIO"),
        (["PUSH_INVALIDATION_MAX_RATIO": "nan"], "PUSH_INVALIDATION_MAX_RATIO"),
        (["PUSH_INVALIDATION_MAX_RATIO": "a fifth"], "PUSH_INVALIDATION_MAX_RATIO"),
        (["PUSH_INVALIDATION_MIN_SENDS": "0"], "PUSH_INVALIDATION_MIN_SENDS"),
        // Hostile numbers (librdkafka's own check for KAFKA_*) and cleartext provider URLs.
        (["KAFKA_LINGER_MS": "soon"], "KAFKA_LINGER_MS"),
        (["KAFKA_MESSAGE_MAX_BYTES": "99999999999999999999"], "KAFKA_MESSAGE_MAX_BYTES"),
        (["PUSH_MAX_ATTEMPTS": "9223372036854775808"], "PUSH_MAX_ATTEMPTS"),
        (["PUSH_RETRY_CAP_MS": "-9223372036854775809"], "PUSH_RETRY_CAP_MS"),
        (["FCM_URL": "http://fcm.example"], "FCM_URL"),
        (["APNS_URL": "http://apns.example"].merging(Self.apnsOnly) { $1 }, "APNS_URL"),
        (["APNS_SANDBOX_URL": "HTTP://apns.example"].merging(Self.apnsOnly) { $1 }, "APNS_SANDBOX_URL"),
        (["PUSH_ALLOW_INSECURE_HTTP": "yes"], "PUSH_ALLOW_INSECURE_HTTP"),
        // Copied into every receipt: a pod name is at most 253 characters.
        (["PUSH_WORKER_ID": String(repeating: "w", count: 100_000)], "PUSH_WORKER_ID"),
        (["HOSTNAME": String(repeating: "w", count: 254)], "HOSTNAME"),
        (["PUSH_WORKER_ID": "pod\u{7}"], "PUSH_WORKER_ID"),
        // Readiness reads librdkafka's statistics: switched off, a pod would never be ready.
        (["KAFKA_STATISTICS_INTERVAL_MS": "0"], "KAFKA_STATISTICS_INTERVAL_MS"),
        (["KAFKA_STATISTICS_INTERVAL_MS": "3600000"], "KAFKA_STATISTICS_INTERVAL_MS"),
        (["FCM_URL": "https://h:99999"], "FCM_URL"),
        (["FCM_URL": "https://h:0"], "FCM_URL"),
        (["FCM_URL": "https://h:"], "FCM_URL"),
        (["FCM_URL": "https://h:+443"], "FCM_URL"),
        (["FCM_URL": "https://[::1"], "FCM_URL"),
        (["FCM_URL": "https://[::1]x"], "FCM_URL"),
        (["FCM_URL": "https://[not-v6]:443"], "FCM_URL"),
        (["FCM_URL": "https://user@fcm.example"], "FCM_URL"),
        (["FCM_URL": "https://fcm.example/?q=1"], "FCM_URL"),
        (["FCM_URL": "https://fcm..example"], "FCM_URL"),
        (["FCM_URL": "https://"], "FCM_URL"),
        (["APNS_URL": "https://h:99999"].merging(Self.apnsOnly) { $1 }, "APNS_URL"),
    ])
    func aBadSettingIsRefusedNamingItsVariable(overrides: [String: String], variable: String) {
        #expect {
            try Self.fcmWith(overrides)
        } throws: { error in
            (error as? InvalidSetting)?.variable == variable
        }
    }

    @Test(arguments: [
        "https://fcm.googleapis.com", "https://127.0.0.1:8443", "https://[::1]:8443", "https://[fe80::1]",
        "https://gateway.example:443/fcm/",
    ])
    func wellFormedProviderURLsAreTaken(url: String) throws {
        #expect(try Self.fcmWith(["FCM_URL": url]).fcm?.url.hasPrefix(String(url.prefix(12))) == true)
    }

    @Test func theTokenInvalidationGuardDefaultsToAFifthOf200SendsAndTakesAnyFractionUpToOne() throws {
        #expect(try Self.fcmWith([:]).pipeline.invalidationMaxRatio == 0.2)
        #expect(try Self.fcmWith([:]).pipeline.invalidationMinSends == 200)
        let set = try Self.fcmWith(["PUSH_INVALIDATION_MAX_RATIO": "1", "PUSH_INVALIDATION_MIN_SENDS": "20"])
        #expect(set.pipeline.invalidationMaxRatio == 1)
        #expect(set.pipeline.invalidationMinSends == 20)
        #expect(try Self.fcmWith(["PUSH_INVALIDATION_MAX_RATIO": "0.05"]).pipeline.invalidationMaxRatio == 0.05)
    }

    @Test func aWorkerNameOfAPodsLengthIsTaken() throws {
        let name = String(repeating: "w", count: 253)
        #expect(try Self.fcmWith(["PUSH_WORKER_ID": name]).pipeline.worker == name)
        #expect(try Self.fcmWith(["HOSTNAME": "pod-1"]).pipeline.worker == "pod-1")
    }

    @Test func noProviderAtAllIsRefused() {
        #expect {
            try WorkerConfiguration.load(environment: [:])
        } throws: { error in
            (error as? InvalidSetting)?.variable == "APNS_KEY_FILE"
        }
    }

    /// The provider URLs are read once for the default app and the app folders: both see the same values, and a
    /// bad one refuses the start only where a provider or the apps folder uses it.
    @Test func theDefaultAppAndTheAppFoldersShareOneReadingOfTheProviderURLs() throws {
        let urls = ["APNS_URL": "https://apns.example", "APNS_SANDBOX_URL": "https://sandbox.example"]
        let both = try WorkerConfiguration.load(
            environment: Self.apnsOnly.merging(urls) { $1 }.merging(["PUSH_APPS_DIR": "/apps"]) { $1 })
        let apns = try #require(both.apns)
        let apps = try #require(both.apps)
        #expect(apns.url == apps.defaultURLs.apns && apns.sandboxURL == apps.defaultURLs.apnsSandbox)
        #expect(apps.defaultURLs == AppURLs(apns: "https://apns.example", apnsSandbox: "https://sandbox.example"))
        #expect(try Self.fcmWith(["APNS_URL": "apns.example"]).apns == nil)
        #expect {
            try Self.fcmWith(["APNS_URL": "apns.example", "PUSH_APPS_DIR": "/apps"])
        } throws: { error in
            (error as? InvalidSetting)?.variable == "APNS_URL"
        }
    }

    @Test func anAppsFolderAloneIsEnoughAndItsSettingsAreRead() throws {
        let configuration = try WorkerConfiguration.load(environment: [
            "PUSH_APPS_DIR": "/etc/push-apps", "PUSH_APPS_CHECK_MS": "1000", "PUSH_APPS_MAX_LIVE": "8",
            "PUSH_APPS_IDLE_MS": "60000", "PUSH_APPS_METRICS_LABELS": "3", "APNS_URL": "https://apns.example/",
        ])
        #expect(configuration.apns == nil && configuration.fcm == nil)
        let apps = try #require(configuration.apps)
        #expect(apps.directory == "/etc/push-apps")
        #expect(apps.checkInterval == .seconds(1))
        #expect(apps.maximumLiveApps == 8)
        #expect(apps.idleTimeout == .seconds(60))
        #expect(apps.maximumLabelledApps == 3)
        #expect(apps.defaultURLs == AppURLs(apns: "https://apns.example"))
        #expect(try WorkerConfiguration.load(environment: Self.apnsOnly).apps == nil)
        #expect {
            try WorkerConfiguration.load(environment: ["PUSH_APPS_DIR": "/a", "PUSH_APPS_MAX_LIVE": "0"])
        } throws: { error in
            (error as? InvalidSetting)?.variable == "PUSH_APPS_MAX_LIVE"
        }
    }

    @Test func theEnvironmentWinsOverTheConfigFile() throws {
        let file = try EnvironmentFile.parse(
            """
            # worker settings
            export PUSH_TOPICS=from-file
            KAFKA_GROUP_ID = "file-group"
            FCM_SERVICE_ACCOUNT_FILE='/file/sa.json'

            """, path: "worker.env")
        let configuration = try WorkerConfiguration.load(environment: ["PUSH_TOPICS": "from-env"], file: file)
        #expect(configuration.pipeline.inputTopics == ["from-env"])
        #expect(configuration.pipeline.group == "file-group")
        #expect(configuration.fcm?.serviceAccountFile == "/file/sa.json")
    }

    @Test(arguments: ["JUST TEXT", "1BAD=x", "=value"])
    func aMalformedConfigFileLineIsRefusedWithItsLineNumber(line: String) {
        #expect {
            try EnvironmentFile.parse("A=1\n\(line)\n", path: "w.env")
        } throws: { error in
            (error as? InvalidSetting)?.reason.hasPrefix("w.env line 2:") == true
        }
    }

    /// The FCM-only configuration with `overrides`.
    static func fcmWith(_ overrides: [String: String]) throws -> WorkerConfiguration {
        try WorkerConfiguration.load(environment: fcmOnly.merging(overrides) { $1 })
    }

    /// librdkafka counts the SASL user name as sensitive too, and the OAuth bearer configuration.
    @Test func printingTheConfigurationRedactsSecrets() throws {
        let configuration = try Self.fcmWith([
            "KAFKA_SASL_PASSWORD": "hunter2", "KAFKA_SASL_USERNAME": "svc-user",
            "KAFKA_SASL_OAUTHBEARER_CONFIG": "principal=admin scope=s3cr3t", "KAFKA_SASL_MECHANISM": "PLAIN",
        ])
        for secret in ["hunter2", "svc-user", "s3cr3t"] { #expect(!configuration.description.contains(secret)) }
        #expect(configuration.description.contains("sasl.mechanism=PLAIN"))
    }

    @Test func kubernetesServiceLinksAreIgnoredAndListedForOneWarning() throws {
        let configuration = try Self.fcmWith([
            "KAFKA_PORT": "tcp://10.0.0.7:9092", "KAFKA_SERVICE_HOST": "10.0.0.7",
            "KAFKA_PORT_9092_TCP_ADDR": "10.0.0.7", "KAFKA_SOCKET_TIMEOUT_MS": "7000",
        ])
        #expect(
            configuration.ignoredKafkaVariables == ["KAFKA_PORT", "KAFKA_PORT_9092_TCP_ADDR", "KAFKA_SERVICE_HOST"])
        #expect(configuration.kafka["socket.timeout.ms"] == "7000")
        #expect(configuration.kafka["port"] == nil)
        #expect(configuration.kafka["service.host"] == nil)
    }

    @Test func cleartextProviderURLsNeedTheExplicitDevelopmentSetting() throws {
        let configuration = try Self.fcmWith(["FCM_URL": "http://127.0.0.1:8080", "PUSH_ALLOW_INSECURE_HTTP": "true"])
        #expect(configuration.fcm?.url == "http://127.0.0.1:8080")
        #expect(configuration.description.contains("PUSH_ALLOW_INSECURE_HTTP"))
        #expect(throws: Never.self) {
            try WorkerConfiguration.checkTransport(of: "http://oauth/token", variable: "token_uri", allowsHTTP: true)
        }
        #expect(throws: InvalidSetting.self) {
            try WorkerConfiguration.checkTransport(of: "http://oauth/token", variable: "token_uri", allowsHTTP: false)
        }
    }

    @Test(arguments: [(nil, 900_000), ("2000000", 1_900_000), ("100000", 1024)])
    func theEventSizeLimitLeavesRoomForTheDeadLetterUnderMessageMaxBytes(setting: String?, expected: Int) throws {
        let overrides = setting.map { ["KAFKA_MESSAGE_MAX_BYTES": $0] } ?? [:]
        #expect(try Self.fcmWith(overrides).maximumEventBytes == expected)
    }
}
