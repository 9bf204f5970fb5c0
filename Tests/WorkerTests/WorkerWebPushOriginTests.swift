import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import Testing

/// Each push service (endpoint origin) has its own breaker and in-flight limit: the simulator serves two origins,
/// `https://127.0.0.1:PORT` and `https://localhost:PORT`, and fails or stalls the first one's subscriptions.
extension WorkerWebPushTests {
    static func subscribe(_ simulator: PushSimulator, origin: String) async throws -> Subscribed {
        try await simulator.control(
            "POST", "/control/webpush-subscribe", body: #"{"origin": "\#(origin)"}"#, as: Subscribed.self)
    }

    static func message(_ id: String, room: String, to clients: [String]) -> (topic: String, key: String, value: String)
    {
        let listed = clients.map { "\"\($0)\"" }.joined(separator: ", ")
        return (
            "chat.messages", room,
            #"{"_id": "\#(id)", "message": "hi", "room": "\#(room)", "sender": {"_id": "sss"}, "messageType": "text", "appID": "SampleApp", "pushToClients": [\#(listed)]}"#
        )
    }

    @Test func aFailingPushServiceOpensItsOwnBreakerAndTheOtherKeepsDelivering() async throws {
        let simulator = try await PushSimulator.start()
        let other = simulator.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let down = try await Self.subscribe(simulator, origin: simulator.baseURL)
        let good = try await Self.subscribe(simulator, origin: other)
        try await simulator.addFaultRule(#"{"path": "/wp/\#(down.id)$", "status": 503}"#)
        var records = [("down", down), ("good", good)].map { client, subscribed in
            let (key, value) = Self.record(client, "B1", token: subscribed.subscription)
            return (topic: "push.devices", key: key, value: value)
        }
        records += (0..<6).map { Self.message("imkit-o\($0)", room: "demo-room", to: ["down", "good"]) }
        let settings = ["PUSH_PROVIDER_FAILURE_THRESHOLD": "2", "PUSH_PROBE_INTERVAL_MS": "600000"]
        let (status, (receipts, requests)) = try await Self.run(simulator, settings: settings, records: records) {
            run in
            let receipts = try await readRecords(run.kafka, topic: "push.receipts", count: 6, within: .seconds(90))
            return (receipts, try await simulator.requests())
        }
        #expect(status == 0)
        let delivered = receipts.compactMap { try? JSONParser.parse($0.value) }.filter {
            $0["userId"] == .string("good") && $0["status"] == .string("delivered")
        }
        #expect(delivered.count == 6)
        #expect(
            requests.filter { $0.path == "/wp/\(down.id)" }.count == 2,
            "the failing service's breaker opened after 2 failures and held back every later send")
    }

    @Test func aStallingPushServiceHoldsOnlyItsOwnSends() async throws {
        let simulator = try await PushSimulator.start()
        let other = simulator.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        var stalled: [Subscribed] = []
        for _ in 0..<4 { stalled.append(try await Self.subscribe(simulator, origin: simulator.baseURL)) }
        let good = try await Self.subscribe(simulator, origin: other)
        let ids = stalled.map(\.id).joined(separator: "|")
        try await simulator.addFaultRule(#"{"path": "/wp/(\#(ids))$", "stall": true}"#)
        var records = stalled.enumerated().map { index, subscribed in
            let (key, value) = Self.record("stalled\(index)", "B1", token: subscribed.subscription)
            return (topic: "push.devices", key: key, value: value)
        }
        let (key, value) = Self.record("good", "B1", token: good.subscription)
        records.append((topic: "push.devices", key: key, value: value))
        records += (0..<4).map { Self.message("imkit-s\($0)", room: "room-\($0)", to: ["stalled\($0)"]) }
        // Without a limit per origin, the 4 stalled sends would hold all 3 of Web Push's for 20 s.
        let settings = [
            "WEBPUSH_MAX_SENDS_PER_ORIGIN": "2", "PUSH_MAX_SENDS_PER_PROVIDER": "3", "PUSH_REQUEST_TIMEOUT_MS": "20000",
        ]
        let (status, (stalledSeen, waited, receipts)) = try await Self.run(
            simulator, settings: settings, records: records
        ) { run in
            // Counted by subscription: a stalled send is reset at its 20 s deadline, and only then may another
            // subscription's send take its permit, long after this wait ended.
            var stalledSeen: [RecordedRequest] = []
            let deadline = ContinuousClock.now + .seconds(60)
            while Set(stalledSeen.map(\.path)).count < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                stalledSeen = try await simulator.requests().filter { $0.path.hasPrefix("/wp/") }
            }
            let producer = try KafkaProducer(configuration: run.kafka)
            let (topic, key, value) = Self.message("imkit-g", room: "room-g", to: ["good"])
            let start = ContinuousClock.now
            _ = try await producer.send(
                KafkaProducerRecord(topic: topic, key: Array(key.utf8), value: Array(value.utf8)))
            var receipts: [JSONValue] = []
            while ContinuousClock.now - start < .seconds(15),
                !receipts.contains(where: { $0["userId"] == .string("good") })
            {
                receipts = try await readRecords(run.kafka, topic: "push.receipts", count: 1, within: .seconds(1))
                    .compactMap { try? JSONParser.parse($0.value) }
            }
            let waited = ContinuousClock.now - start
            _ = await producer.close(timeout: .seconds(5))
            return (stalledSeen, waited, receipts)
        }
        #expect(status == 0)
        #expect(
            Set(stalledSeen.map(\.path)).count == 2,
            """
            the stalling service got its 2 sends, no more: \(stalledSeen.map {
                "#\($0.seq) at \($0.receivedAt ?? 0) connection \($0.connection) stream \($0.stream) \($0.path) \($0.fault ?? "answered")"
            })
            """)
        let arrivals = stalledSeen.compactMap(\.receivedAt)
        #expect(
            (arrivals.max() ?? 0) - (arrivals.min() ?? 0) < 5,
            "both stalled sends were in flight at once, not the second behind the first until its deadline")
        #expect(receipts.first { $0["userId"] == .string("good") }?["status"] == .string("delivered"))
        #expect(waited < .seconds(10), "the other service's push went out while the first one stalled")
    }
}
