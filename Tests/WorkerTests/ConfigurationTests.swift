import Observability
import Testing

@testable import Worker

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
        #expect(configuration.pipeline.retryTopic == "push.retry")
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
            "PUSH_MAX_IN_FLIGHT": "50", "PUSH_RETRY_BUDGET_MS": "2500", "PUSH_WORKER_ID": "w-1",
        ]) { $1 }
        let configuration = try WorkerConfiguration.load(environment: environment)
        #expect(configuration.apns?.url == "https://127.0.0.1:8443")
        #expect(configuration.apns?.sandboxURL == "https://api.sandbox.push.apple.com")
        #expect(configuration.apns?.topic == "com.example.chat")
        #expect(configuration.kafka["sasl.mechanism"] == "PLAIN")
        #expect(configuration.pipeline.inputTopics == ["a", "b"])
        #expect(configuration.pipeline.maxInFlightRecords == 50)
        #expect(configuration.pipeline.retryBudget == .milliseconds(2500))
        #expect(configuration.pipeline.worker == "w-1")
    }

    @Test(arguments: [
        (["PUSH_MAX_IN_FLIGHT": "lots"], "PUSH_MAX_IN_FLIGHT"),
        (["PUSH_BATCH_SIZE": "0"], "PUSH_BATCH_SIZE"),
        (["PUSH_TOPICS": " , "], "PUSH_TOPICS"),
        (["PUSH_TOPICS": "bad topic!"], "PUSH_TOPICS"),
        (["PUSH_RECEIPTS_TOPIC": "chat.messages"], "PUSH_RECEIPTS_TOPIC"),
        (["PUSH_RETRY_TOPIC": "push.dlq"], "PUSH_RETRY_TOPIC"),
        (["FCM_URL": "fcm.googleapis.com"], "FCM_URL"),
        (["KAFKA_MAX_POLL_INTERVAL_MS": "10000", "PUSH_REVOKE_DRAIN_MS": "20000"], "PUSH_REVOKE_DRAIN_MS"),
        (["PUSH_RETRY_BASE_MS": "1000", "PUSH_RETRY_CAP_MS": "10"], "PUSH_RETRY_CAP_MS"),
        (["APNS_KEY_FILE": "/k.p8"], "APNS_KEY_ID"),
        (["KAFKA_GROUP_ID": "two words"], "KAFKA_GROUP_ID"),
        (["PUSH_DEFAULT_LOCALE": "korean!"], "PUSH_DEFAULT_LOCALE"),
    ])
    func aBadSettingIsRefusedNamingItsVariable(overrides: [String: String], variable: String) {
        #expect {
            try WorkerConfiguration.load(environment: Self.fcmOnly.merging(overrides) { $1 })
        } throws: { error in
            (error as? InvalidSetting)?.variable == variable
        }
    }

    @Test func noProviderAtAllIsRefused() {
        #expect {
            try WorkerConfiguration.load(environment: [:])
        } throws: { error in
            (error as? InvalidSetting)?.variable == "APNS_KEY_FILE"
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

    @Test func printingTheConfigurationRedactsSecrets() throws {
        let configuration = try WorkerConfiguration.load(
            environment: Self.fcmOnly.merging(["KAFKA_SASL_PASSWORD": "hunter2", "KAFKA_SASL_USERNAME": "svc"]) { $1 })
        #expect(!configuration.description.contains("hunter2"))
        #expect(configuration.description.contains("svc"))
    }
}
