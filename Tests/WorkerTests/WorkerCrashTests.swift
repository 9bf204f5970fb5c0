import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import PushPipeline
import TestSupport
import Testing

/// At least once across crashes and group changes, with real processes.
@Suite(.serialized) struct WorkerCrashTests {
    static func events(_ count: Int) -> [(key: String, value: String)] {
        (0..<count).map { index in
            (key: "r-\(index % 3)", value: EndToEnd.event(index, apnsToken: String(format: "%064x", index + 1)))
        }
    }

    /// Fault injection: on the mock cluster whatever `PUSH_TEST_BROKER` says.
    @Test func theBrokerDownForFiveSecondsAndFailedCommitsLoseNothing() async throws {
        let run = try await EndToEnd(broker: .mock) { simulator in
            try await simulator.addFaultRule("{\"path\": \".\", \"latency_ms\": 5}")
        }
        let count = 600
        _ = await run.worker.stderr.waitForLine(containing: "partitions assigned")
        try await run.produce(Self.events(count))
        try await run.broker.control("request-errors OffsetCommit 5 REQUEST_TIMED_OUT")
        try await Task.sleep(for: .milliseconds(300))
        try await run.broker.control("broker-down 1")
        try await Task.sleep(for: .seconds(5))
        try await run.broker.control("broker-up 1")
        let outputs = try await run.read(["push.receipts"], within: .seconds(120)) {
            ReceiptCount($0).distinct >= 2 * count
        }
        #expect(await run.stop() == 0)
        #expect(ReceiptCount(outputs).distinct == 2 * count)
    }

    /// kill -9 at seeded random moments of a long run, restarted each time: every event ends with its receipt.
    ///
    /// `PUSH_TEST_KILL_EVENTS` events (20,000 unless set), one device each (APNs and FCM alternating) in 50 rooms,
    /// killed four times, each once the simulator has seen a random (seeded) number of pushes between 10 % and
    /// 90 % of the run, and at least 100 sent by the running process.
    ///
    /// The duplicate bound: after a kill, the replacement resends every record whose receipt Kafka acknowledged
    /// but whose offset the group had not committed. Those are the records in flight at the kill (at most
    /// `PUSH_MAX_IN_FLIGHT` = F and the last poll's batch B, `PUSH_BATCH_SIZE`: the loop stops polling at F) and
    /// those finished since the last commit that succeeded, which began at most one auto-commit interval C before
    /// (plus its round trip, taken as another C). A room sends its records one after another and each answer takes
    /// at least the simulator's latency L,
    /// so each of the R rooms finishes at most 2C / L records in that window. Per kill: F + B + R × 2C / L receipts
    /// (one device per event); the test allows `kills ×` that.
    @Test func killedAtRandomMomentsAndRestartedItLosesNothing() async throws {
        let count = ProcessInfo.processInfo.environment["PUSH_TEST_KILL_EVENTS"].flatMap { Int($0) } ?? 20_000
        // The simulator's latency keeps the run longer than producing its events (50 rooms × 25 records/s): the
        // kills must fall while the worker is still sending.
        let (kills, maxInFlight, batch, rooms, latencyMillis, commitMillis) = (4, 200, 100, 50, 40, 100)
        // Four partitions: the mock cluster keeps about 5 MB of each, and the run writes some 12 MB of receipts.
        let run = try await EndToEnd(
            workerEnvironment: [
                "PUSH_MAX_IN_FLIGHT": "\(maxInFlight)", "PUSH_BATCH_SIZE": "\(batch)",
                "KAFKA_AUTO_COMMIT_INTERVAL_MS": "\(commitMillis)",
            ], partitions: 4
        ) { simulator in
            try await simulator.addFaultRule("{\"path\": \".\", \"latency_ms\": \(latencyMillis)}")
        }
        try await run.produce(
            (0..<count).map { index in
                (key: "r-\(index % rooms)", value: EndToEnd.event(index, device: index % 2, rooms: rooms))
            })
        var generator = SeededGenerator(seed: 5)
        let moments = (0..<kills).map { _ in Int.random(in: count / 10...count * 9 / 10, using: &generator) }.sorted()
        for moment in moments {
            let started = try await run.simulator.stats().streams
            // Every 50 ms, at most 3 minutes, until the simulator has seen the moment's stream.
            var checks = 0
            while checks < 3_600, try await run.simulator.stats().streams < max(moment, started + 100) {
                checks += 1
                try await Task.sleep(for: .milliseconds(50))
            }
            run.worker.signal(SIGKILL)
            _ = await run.worker.exitStatus()
            // The simulator refuses a new APNs provider token within 20 minutes of the last one (per key);
            // the replacement process signs its own, so the simulator forgets the old one.
            _ = try await run.simulator.control("POST", "/control/apns-reset", body: "{}")
            try run.startWorker(replacing: true)
        }
        let outputs = try await run.read(["push.receipts"], within: .seconds(300)) {
            $0.count >= count && ReceiptCount($0).distinct >= count
        }
        // Duplicates written after the last distinct receipt are not waited for: they would not change the result.
        #expect(await run.stop() == 0)
        let receipts = ReceiptCount(outputs)
        let bound = kills * (maxInFlight + batch + rooms * 2 * commitMillis / latencyMillis)
        print(
            "kill -9 ×\(kills) over \(count) events: lost \(count - receipts.distinct), "
                + "duplicates \(receipts.duplicates) (bound \(bound))")
        #expect(receipts.distinct == count)
        #expect(receipts.duplicates <= bound)
    }

    /// Two workers share a stream; one leaves with SIGTERM while its rooms are still sending, and the other serves
    /// what it gave up from the offsets it committed: every event gets its one receipt, none twice.
    ///
    /// Each event has one FCM device: the push simulator refuses a second APNs provider token for a key within 20
    /// minutes, so after the leaver's APNs sends the survivor's own token would be refused (429
    /// `TooManyProviderTokenUpdates`) for the rest of the test. The rooms r-0…r-7 put events on both partitions
    /// (librdkafka's partitioner: r-4…r-7 on partition 0, the others on 1); the simulator's 20 ms per send and 100
    /// records in flight leave most of the leaver's records unread at SIGTERM (it finishes those in flight), so the
    /// survivor takes them over, whichever input partitions the assignor gave the leaver (one or both: it balances
    /// the retry topics' partitions too). The second worker starts once the first owns every partition, so the leaver
    /// is not the group's leader (a leader leaving a forming group stops Tansu's group: `TansuDifferencesTests`).
    @Test func aWorkerLeavingTheGroupWithSigtermCausesNoLossAndNoDuplicates() async throws {
        let run = try await EndToEnd(workerEnvironment: ["PUSH_MAX_IN_FLIGHT": "100", "PUSH_BATCH_SIZE": "50"]) {
            simulator in try await simulator.addFaultRule("{\"path\": \".\", \"latency_ms\": 20}")
        }
        #expect(await RollingRestartTests.waitUntilAllPartitionsOwned(by: [run.worker], within: .seconds(60)))
        let second = try run.startWorker(id: "worker-e2e-2")
        // A cooperative join takes two rebalances: the second worker's first assignment may be empty.
        let split = await eventually(within: .seconds(60), every: .milliseconds(200)) {
            RollingRestartTests.allPartitionsOwned(by: [run.worker, second])
                && RollingRestartTests.partitions(of: second).owned.contains { $0.hasPrefix("chat.messages[") }
        }
        #expect(split)
        let (count, rooms) = (1_000, 8)
        try await run.produce(
            (0..<count).map { (key: "r-\($0 % rooms)", value: EndToEnd.event($0, device: 1, rooms: rooms)) })
        // SIGTERM once the leaver has sent: it then has records done, records in flight and records not read yet.
        let fromLeaver = { (record: KafkaRecord) in
            (try? JSONParser.parse(record.value))?["worker"] == .string("worker-e2e-2")
        }
        let early = try await run.read(["push.receipts"], within: .seconds(60)) { $0.contains(where: fromLeaver) }
        #expect(early.contains(where: fromLeaver))
        second.signal(SIGTERM)
        #expect(await second.exitStatus() == 0)
        let outputs = try await run.read(["push.receipts"], count: count, within: .seconds(120))
        #expect(await run.stop() == 0)
        let receipts = ReceiptCount(outputs)
        print("SIGTERM leaver on \(run.broker.kind): \(receipts.distinct) of \(count) receipts within 120 s")
        #expect(receipts.distinct == count)
        #expect(receipts.duplicates == 0)
        // The one that stayed sent from both partitions: it took over what the leaver had not finished.
        let survivorsPartitions = Set(
            outputs.compactMap { try? JSONParser.parse($0.value) }.filter { $0["worker"] == .string("worker-e2e") }
                .compactMap { receipt -> String? in
                    guard case .number(let partition) = receipt["source"]?["partition"] else { return nil }
                    return partition
                })
        #expect(survivorsPartitions == ["0", "1"])
    }
}
