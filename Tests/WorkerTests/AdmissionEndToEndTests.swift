import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// Admission with the real processes: nothing a chat user or a retry backlog can put on a topic holds other rooms'
/// messages back.
@Suite(.serialized) struct AdmissionEndToEndTests {
    static func token(_ index: Int) -> String { String(format: "%064x", index + 1) }

    /// 1,000 retry records on every partition of the 10-minute and the 1-hour tier, due 9 and 50 minutes ahead
    /// (what a worker writes after a 429 storm): fresh chat messages are delivered at once, none of the waiting
    /// records is sent, at most one per tier partition waits in memory, and the lag shows the rest.
    @Test func retryRecordsDueLaterNeverHoldFreshMessages() async throws {
        let run = try await EndToEnd()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var waiting: [KafkaProducerRecord] = []
        for (topic, ahead) in [("push.retry-600000", Int64(9 * 60_000)), ("push.retry-3600000", Int64(50 * 60_000))] {
            for partition in 0..<Int32(run.partitions) {
                for index in 0..<1_000 {
                    let event = ChatEvents.text(
                        index, room: "w-\(index % 7)",
                        devices: [.apns(token: String(format: "%064x", 0xabc00000 + index))])
                    waiting.append(
                        KafkaProducerRecord(
                            topic: topic, partition: partition, key: Array("w-\(index % 7)".utf8),
                            value: Array(event.replacingOccurrences(of: "\"m-\(index)\"", with: "\"w-\(index)\"").utf8),
                            headers: [
                                KafkaHeader(name: "x-retry-due", value: Array(String(now + ahead).utf8)),
                                KafkaHeader(name: "x-attempts", value: Array("1".utf8)),
                                KafkaHeader(name: "x-first-failure", value: Array(String(now).utf8)),
                            ]))
                }
            }
        }
        for chunk in stride(from: 0, to: waiting.count, by: 500) {
            let reports = await run.producer.send(Array(waiting[chunk..<min(chunk + 500, waiting.count)]))
            #expect(reports.allSatisfy { (try? $0.get()) != nil })
        }
        // The fresh messages come once the worker holds waiting records.
        let port = try await WorkerScrapeTests.statusPort(of: run)
        let holding = try await eventually(within: .seconds(60), every: .milliseconds(200)) {
            (WorkerScrapeTests.sample(
                #"push_records_waiting_due{stage="input"}"#, in: try WorkerScrapeTests.get(port: port, "/metrics").body)
                ?? 0)
                >= 1
        }
        #expect(holding)

        let started = ContinuousClock.now
        for index in 0..<20 {
            try await run.produce(EndToEnd.event(index, device: 0, rooms: 5), key: "r-\(index % 5)")
        }
        let receipts = try await run.read(["push.receipts"], within: .seconds(120)) { ReceiptCount($0).distinct >= 20 }
        let elapsed = ContinuousClock.now - started
        // Lag comes with librdkafka's statistics (every 5 s).
        var scrape = ""
        _ = try await eventually(within: .seconds(60), every: .milliseconds(500)) {
            scrape = try WorkerScrapeTests.get(port: port, "/metrics").body
            return Self.lag(of: "push.retry-600000", in: scrape) >= 1_990
                && Self.lag(of: "push.retry-3600000", in: scrape) >= 1_990
        }
        let requests = try await run.simulator.requests()
        #expect(await run.stop() == 0)

        #expect(ReceiptCount(receipts).distinct == 20)
        // Held back, they would wait for the first due time, 9 minutes away.
        #expect(elapsed < .seconds(60), "\(elapsed)")
        #expect(requests.filter(\.isPush).allSatisfy { $0.messageId?.hasPrefix("m-") ?? false })
        let held = WorkerScrapeTests.sample(#"push_records_waiting_due{stage="input"}"#, in: scrape)
        #expect(held.map { $0 >= 1 && $0 <= Double(2 * run.partitions) } == true, "\(held as Double?)")
        #expect(Self.lag(of: "push.retry-600000", in: scrape) >= 1_990, "\(scrape)")
        #expect(Self.lag(of: "push.retry-3600000", in: scrape) >= 1_990, "\(scrape)")
    }

    /// A chat text of 10,000 `{` under a device budget that holds them all but a few: while one room's message
    /// of ten devices is retried in process (its ten units held), the text and 50 ordinary messages in other
    /// rooms are delivered before that retry ends. Counting every `{` would make the text wait for the whole
    /// retry, and everything after it in line with it.
    @Test func bracesInAChatTextHoldNoOtherRoom() async throws {
        let (receipts, elapsed) = try await Self.besideASlowRoom(
            devices: 10, budget: 10_010, expected: 1 + 50
        ) { run in
            let braces = ChatEvents.text(1, room: "r-braces", devices: [.apns(token: Self.token(1))])
                .replacingOccurrences(of: "\"Hello 1\"", with: "\"\(String(repeating: "{", count: 10_000))\"")
            #expect(braces.utf8.count > 10_000)
            try await run.produce(braces, key: "r-braces")
        }
        #expect(ReceiptCount(receipts).distinct == 51)
        #expect(elapsed < .seconds(25), "\(elapsed)")
    }

    /// A message with more devices than the whole device budget does not wait for the units others hold: while
    /// one room's message is retried in process, the big one and 50 ordinary messages in other rooms are delivered
    /// before that retry ends.
    @Test func aMessageBiggerThanTheDeviceBudgetHoldsNoOtherRoom() async throws {
        let (receipts, elapsed) = try await Self.besideASlowRoom(devices: 1, budget: 20, expected: 30 + 50) { run in
            let crowd = (0..<30).map { ChatEvents.Device.apns(token: Self.token(100 + $0)) }
            try await run.produce(ChatEvents.text(2, room: "r-big", devices: crowd), key: "r-big")
        }
        #expect(ReceiptCount(receipts).distinct == 80)
        #expect(elapsed < .seconds(25), "\(elapsed)")
    }

    /// Starts a worker with a device budget of `budget`, writes a message in room r-slow to `devices` APNs devices
    /// the simulator answers 503 (retried in process for 30 s), and once the first refusal came, `produce`s and
    /// writes 50 one-device messages in rooms of their own. Returns the receipts of `expected` sends, read as they
    /// came, and how long they took from `produce`; checks that the slow message had none by then.
    static func besideASlowRoom(
        devices: Int, budget: Int, expected: Int, produce: (EndToEnd) async throws -> Void
    ) async throws -> (receipts: [KafkaRecord], elapsed: Duration) {
        let run = try await EndToEnd(workerEnvironment: [
            // Up to 100 sends about half a second apart, within 30 s of delays: the slow room's retry outlasts the
            // rest of the test.
            "PUSH_MAX_IN_FLIGHT_DEVICES": String(budget), "PUSH_RETRY_BUDGET_MS": "30000",
            "PUSH_RETRY_BASE_MS": "1000", "PUSH_RETRY_CAP_MS": "1000", "PUSH_MAX_ATTEMPTS": "100",
        ]) { simulator in
            try await simulator.addFaultRule(#"{"path": "^/3/device/dead", "times": 100000, "status": 503}"#)
        }
        let slow = (0..<devices).map { ChatEvents.Device.apns(token: String(format: "dead%060x", $0)) }
        try await run.produce(ChatEvents.text(0, room: "r-slow", devices: slow), key: "r-slow")
        let refused = try await eventually(within: .seconds(30), every: .milliseconds(100)) {
            try await run.simulator.requests().contains { $0.messageId == "m-0" }
        }
        #expect(refused)

        let started = ContinuousClock.now
        try await produce(run)
        try await run.produce((3..<53).map { (key: "r-\($0)", value: EndToEnd.event($0, device: 0, rooms: 1_000)) })
        let receipts = try await run.read(["push.receipts"], within: .seconds(60)) {
            ReceiptCount($0).distinct >= expected
        }
        let elapsed = ContinuousClock.now - started
        #expect(await run.stop() == 0)
        let ids = receipts.compactMap { try? JSONParser.parse($0.value)["messageId"]?.stringValue }
        #expect(!ids.contains("m-0"), "the slow room's retry ended first: the others were not tested beside it")
        return (receipts, elapsed)
    }

    /// `kafka_consumer_lag` of `topic`, summed over its partitions.
    static func lag(of topic: String, in scrape: String) -> Double {
        scrape.split(separator: "\n").filter { $0.hasPrefix("kafka_consumer_lag{") && $0.contains("\"\(topic)\"") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    }
}
