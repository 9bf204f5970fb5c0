import Foundation
import Kafka
import PushCore
import PushSimulatorSupport
import Testing

struct APNsCredentials: Decodable {
    let keyFile: String
    let keyId: String
    let teamId: String
    let topic: String
}

struct ServiceAccountCredentials: Decodable {
    let serviceAccountFile: String
}

/// The real processes: `push-worker dev-broker`, the push simulator (APNs, FCM, OAuth over TLS HTTP/2) and
/// `push-worker run`; events produced into Kafka, receipts and dead letters read back.
@Suite(.serialized) struct WorkerEndToEndTests {
    static let unregistered = String(repeating: "0f", count: 32)

    static func event(_ index: Int, apnsToken: String) -> String {
        """
        {"id": "m-\(index)", "type": "text", "room": {"id": "r-\(index % 3)", "name": "Team"},
         "sender": {"id": "u-1", "nickname": "Alice"}, "content": "Hello \(index)",
         "createdAt": \(Int64(Date().timeIntervalSince1970 * 1000)),
         "recipients": [{"userId": "u-2", "badge": 1,
           "devices": [{"platform": "apns", "token": "\(apnsToken)"},
                       {"platform": "fcm", "token": "fcm-token-\(index)"}]}]}
        """
    }

    @Test func eventsBecomeProviderRequestsReceiptsAndDeadLetters() async throws {
        let simulator = try await PushSimulator.start()
        defer { Task { await simulator.stop() } }
        let apns = try await simulator.control(
            "POST", "/control/apns-credentials", body: "{}", as: APNsCredentials.self)
        let fcm = try await simulator.control(
            "POST", "/control/oauth-credentials", body: "{\"token_uri\": \"\(simulator.baseURL)/token\"}",
            as: ServiceAccountCredentials.self)
        _ = try await simulator.control(
            "POST", "/control/apns-unregister",
            body: "{\"tokens\": [\"\(Self.unregistered)\"], \"timestamp\": 1700000000000}")

        let broker = try ChildProcess(["dev-broker", "--brokers", "1", "--partitions", "2"])
        #expect(await broker.waitFor { $0.stdout.contains("\n") })
        let bootstrap = try #require(
            broker.stdout.split(separator: "\n").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
        let worker = try ChildProcess(
            ["run"],
            environment: [
                "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "KAFKA_SESSION_TIMEOUT_MS": "6000",
                "KAFKA_HEARTBEAT_INTERVAL_MS": "300", "KAFKA_AUTO_COMMIT_INTERVAL_MS": "200",
                "APNS_URL": simulator.baseURL, "APNS_SANDBOX_URL": simulator.baseURL, "APNS_KEY_FILE": apns.keyFile,
                "APNS_KEY_ID": apns.keyId, "APNS_TEAM_ID": apns.teamId, "APNS_TOPIC": apns.topic,
                "FCM_URL": simulator.baseURL, "FCM_SERVICE_ACCOUNT_FILE": fcm.serviceAccountFile,
                "PUSH_CA_FILE": simulator.endpoint.caFile, "PUSH_HTTP_PORT": "0", "PUSH_HTTP_HOST": "127.0.0.1",
                "PUSH_WORKER_ID": "worker-e2e", "PUSH_SHUTDOWN_GRACE_SECONDS": "5",
            ])

        let kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        let producer = try KafkaProducer(configuration: kafka)
        let count = 20
        for index in 0..<count {
            let token = index == 7 ? Self.unregistered : String(format: "%064x", index + 1)
            _ = try await producer.send(
                KafkaProducerRecord(
                    topic: "chat.messages", key: Array("r-\(index % 3)".utf8),
                    value: Array(Self.event(index, apnsToken: token).utf8)))
        }
        _ = try await producer.send(
            KafkaProducerRecord(topic: "chat.messages", key: Array("r-x".utf8), value: Array("{\"id\": 5".utf8)))

        let reader = try KafkaConsumer(configuration: kafka.merging(KafkaConfiguration(["group.id": "e2e-reader"])))
        var assignment: [Kafka.TopicPartition: KafkaOffset] = [:]
        for partition in Int32(0)..<2 {
            assignment[Kafka.TopicPartition("push.receipts", partition)] = .beginning
            assignment[Kafka.TopicPartition("push.dlq", partition)] = .beginning
        }
        try await reader.assign(assignment)
        var outputs: [KafkaRecord] = []
        let deadline = ContinuousClock.now + .seconds(90)
        while outputs.count < 2 * count + 1, ContinuousClock.now < deadline {
            outputs += try await reader.poll(maxRecords: 500, timeout: .milliseconds(200))
        }
        worker.signal(SIGTERM)
        #expect(await worker.exitStatus() == 0)

        let receipts = outputs.filter { $0.topic == "push.receipts" }.compactMap { try? JSONParser.parse($0.value) }
        #expect(receipts.count == 2 * count)
        let statuses = Dictionary(grouping: receipts) { $0["status"]?.stringValue ?? "?" }.mapValues(\.count)
        #expect(statuses == ["delivered": 2 * count - 1, "invalid_token": 1])
        let invalid = receipts.first { $0["status"] == .string("invalid_token") }
        #expect(invalid?["token"] == .string(Self.unregistered))
        #expect(invalid?["messageId"] == .string("m-7"))
        let deadLetters = outputs.filter { $0.topic == "push.dlq" }
        #expect(deadLetters.map { String(decoding: $0.value, as: UTF8.self) } == ["{\"id\": 5"])
        #expect(deadLetters.first?.key == Array("r-x".utf8))
        if worker.stderr.contains("\"level\":\"error\"") || receipts.count != 2 * count {
            Issue.record("worker log: \(worker.stderr.suffix(3000))")
        }
        _ = await reader.close(timeout: .seconds(5))
        _ = await producer.close(timeout: .seconds(5))
        broker.signal(SIGTERM)
        _ = await broker.exitStatus()
    }
}
