import Essentials
import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// `push-worker run` against the push simulator answering every token of one app "unregistered", as a wrong APNs
/// topic would: the guard trips after `PUSH_INVALIDATION_MIN_SENDS`, acts on no answer after that (no tombstone, no
/// invalid-token record; receipts `"suspect": true`, gauge 1), and resumes once healthy answers bring the ratio down.
@Suite(.serialized) struct WorkerInvalidationGuardTests {
    static func token(_ prefix: String, _ index: Int) -> String { prefix + String(format: "%062x", index) }

    static func subscription(_ client: String, token: String) -> (String, String) {
        (
            "SampleApp/\(client)/ios/D-\(client)",
            #"{"appID": "SampleApp", "clientId": "\#(client)", "type": "ios", "token": "\#(token)", "deviceId": "D-\#(client)"}"#
        )
    }

    static func message(_ id: String, to clients: [String]) -> String {
        let list = clients.map { "\"\($0)\"" }.joined(separator: ", ")
        return
            #"{"_id": "\#(id)", "message": "lala", "room": "demo-room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "pushToClients": [\#(list)]}"#
    }

    @Test func theGuardTripsAfterTheMinimumSendsStopsActingOnTheAnswersAndResumesWhenTheyAreHealthy() async throws {
        let dead = (0..<13).map { "dead\($0)" }
        let healthy = (0..<20).map { "live\($0)" }
        let deadTokens = dead.indices.map { Self.token("de", $0) }
        let simulator = try await PushSimulator.start()
        let unregistered = deadTokens.map { "\"\($0)\"" }.joined(separator: ", ")
        _ = try await simulator.control(
            "POST", "/control/apns-unregister", body: "{\"tokens\": [\(unregistered)], \"timestamp\": 1700000000000}")
        let apns = try await simulator.apnsCredentials()
        let fcm = try await simulator.serviceAccountFile()
        let (broker, bootstrap) = try await startDevBroker()
        let kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        let producer = try KafkaProducer(configuration: kafka)
        func produce(_ topic: String, _ key: String, _ value: String) async throws {
            _ = try await producer.send(
                KafkaProducerRecord(topic: topic, key: Array(key.utf8), value: Array(value.utf8)))
        }
        for (index, client) in dead.enumerated() {
            let (key, value) = Self.subscription(client, token: deadTokens[index])
            try await produce("push.devices", key, value)
        }
        for (index, client) in healthy.enumerated() {
            let (key, value) = Self.subscription(client, token: Self.token("ab", index))
            try await produce("push.devices", key, value)
        }
        let worker = try workerProcess(
            environment: EndToEnd.workerEnvironment(bootstrap: bootstrap, simulator: simulator, apns: apns, fcm: fcm)
                .merging([
                    "PUSH_WORKER_ID": "worker-guard", "PUSH_INVALIDATION_MIN_SENDS": "10",
                    "PUSH_INVALIDATION_MAX_RATIO": "0.5",
                ]) { $1 })
        let receipts = try TopicReader(kafka, topic: "push.receipts")
        // Both read their topic to its end: the invalid-token records and tombstones were acknowledged with the
        // receipts already read.
        func tool(_ arguments: [String]) async throws -> [String] {
            let result = try await ChildProcessResult.run(
                ChildProcess.built("push-worker"), arguments, environment: ["KAFKA_BOOTSTRAP_SERVERS": bootstrap],
                within: .seconds(60))
            return result.stdout.split(separator: "\n").map(String.init)
        }
        func listed(_ client: String) async throws -> Int {
            try await tool(["devices", "list", "--app", "SampleApp", "--client", client]).count
        }
        func deadTokenUsers() async throws -> [String] {
            let list = try JSONParser.parse(
                Array(try await tool(["receipts", "invalid-tokens", "--format", "json"]).joined(separator: "\n").utf8))
            guard case .array(let tokens) = list else { return [] }
            return tokens.compactMap { $0["userId"]?.stringValue }
        }
        func gauge() throws -> String? {
            let port = try #require(WorkerScrapeTests.statusPort(in: worker.stderr.text))
            let scrape = try WorkerScrapeTests.get(port: port, "/metrics").body
            return scrape.split(separator: "\n").first {
                $0.hasPrefix(#"push_token_invalidation_suspended{app="SampleApp",provider="apns"}"#)
            }.map { String($0.split(separator: " ").last ?? "") }
        }

        // Twelve dead tokens in one message: the first nine answers are acted on, the tenth trips the guard.
        try await produce("chat.messages", "demo-room", Self.message("guard-1", to: Array(dead.prefix(12))))
        let tripped = try await receipts.read(count: 12, within: .seconds(90))
        let firstRecords = try await deadTokenUsers()
        let suspendedGauge = try gauge()
        let keptDevices = try await listed("dead11")
        let droppedDevices = try await listed("dead0")

        // Twenty healthy answers bring it to 12 of 32: resumed, and the next dead token is acted on again.
        try await produce("chat.messages", "demo-room", Self.message("guard-2", to: healthy))
        _ = try await receipts.read(count: 20, within: .seconds(60))
        let resumedGauge = try gauge()
        try await produce("chat.messages", "demo-room", Self.message("guard-3", to: ["dead12"]))
        let resumed = try await receipts.read(count: 1, within: .seconds(60))
        let laterRecords = try await deadTokenUsers()
        let unsubscribedAgain = try await listed("dead12")

        worker.signal(SIGTERM)
        let status = await worker.exitStatus()
        await receipts.close()
        _ = await producer.close(timeout: .seconds(5))
        _ = try? await broker.terminate()
        await simulator.stop()
        #expect(status == 0)

        let values = tripped.compactMap { try? JSONParser.parse($0.value) }
        #expect(values.allSatisfy { $0["status"] == .string("invalid_token") })
        let suspect = values.filter { $0["suspect"] == .bool(true) }.compactMap { $0["userId"]?.stringValue }
        #expect(suspect.sorted() == ["dead10", "dead11", "dead9"])
        #expect(firstRecords.sorted() == dead.prefix(9).sorted())
        #expect(suspendedGauge == "1")
        #expect(keptDevices == 1)
        #expect(droppedDevices == 0)
        #expect(resumedGauge == "0")
        #expect(resumed.first.flatMap { try? JSONParser.parse($0.value) }?["suspect"] == nil)
        #expect(laterRecords.sorted() == (dead.prefix(9) + ["dead12"]).sorted())
        #expect(unsubscribedAgain == 0)
        #expect(try schemaViolations(tripped.map(\.value), schema: "receipt.schema.json") == nil)
    }
}

/// A topic's records (both partitions, from the start), read on in steps.
private final class TopicReader {
    let consumer: KafkaConsumer

    init(_ kafka: KafkaConfiguration, topic: String) throws {
        consumer = try KafkaConsumer(configuration: kafka.merging(KafkaConfiguration(["group.id": "guard-reader"])))
        self.topic = topic
    }

    let topic: String
    private var assigned = false

    /// The next records until `count` arrived or `limit` passed.
    func read(count: Int, within limit: Duration) async throws -> [KafkaRecord] {
        if !assigned {
            try await consumer.assign([TopicPartition(topic, 0): .beginning, TopicPartition(topic, 1): .beginning])
            assigned = true
        }
        var records: [KafkaRecord] = []
        let deadline = ContinuousClock.now + limit
        while records.count < count, ContinuousClock.now < deadline {
            records += try await consumer.poll(maxRecords: count - records.count, timeout: .milliseconds(200))
        }
        return records
    }

    func close() async { _ = await consumer.close(timeout: .seconds(5)) }
}
