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
        #expect(
            configuration.pipeline.retryTiers.topics == [
                "push.retry-1000", "push.retry-10000", "push.retry-60000", "push.retry-600000", "push.retry-3600000",
            ])
        #expect(configuration.pipeline.roomOrder == .strict)
        #expect(configuration.pipeline.worker == "pod-7")
        #expect(configuration.fcm?.url == "https://fcm.googleapis.com")
        #expect(configuration.apns == nil)
        #expect(configuration.rulesFile == nil)
    }

    @Test func readsEveryProviderAndKafkaSetting() throws {
        let environment = Self.apnsOnly.merging([
            "APNS_URL": "https://127.0.0.1:8443/", "KAFKA_SASL_MECHANISM": "PLAIN", "PUSH_TOPICS": "a, b",
            "PUSH_MAX_IN_FLIGHT": "50", "PUSH_RETRY_BUDGET_MS": "2500", "PUSH_WORKER_ID": "w-1",
            "PUSH_ROOM_ORDER": "first-attempt", "PUSH_RETRY_TOPIC": "retries", "PUSH_RETRY_TIERS": "500ms, 30s,2m,24h",
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
        #expect(configuration.pipeline.roomOrder == .firstAttempt)
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
        (["APNS_KEY_FILE": "/k.p8"], "APNS_KEY_ID"),
        (["KAFKA_GROUP_ID": "two words"], "KAFKA_GROUP_ID"),
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
