import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import PushPipeline
import TestSupport
import Testing

/// `push-worker replay` as a process beside a live `push-worker run`: dev broker, push simulator, real binaries.
@Suite(.serialized) struct ReplayEndToEndTests {
    static let unregistered = String(repeating: "0e", count: 32)

    /// `push-worker replay ARGUMENTS` with the run's worker environment; its summary parsed as JSON. The APNs
    /// simulator is told to accept the replay's own provider token (it refuses a second token within 20 minutes).
    static func replay(_ run: EndToEnd, _ arguments: [String]) async throws
        -> (result: ChildProcessResult, summary: JSONValue?)
    {
        _ = try await run.simulator.control("POST", "/control/apns-reset", body: "{}")
        let result = try await ChildProcessResult.run(
            ChildProcess.built("push-worker"), ["replay", "--format", "json"] + arguments,
            environment: run.workerEnvironment.merging(["LOG_LEVEL": "warning"]) { $1 })
        return (result, try? JSONParser.parse(Array(result.stdout.utf8)))
    }

    /// Pushes the simulator received (APNs and FCM sends; OAuth token exchanges left out).
    static func pushes(_ run: EndToEnd) async throws -> [RecordedRequest] {
        try await run.simulator.requests().filter {
            $0.path.hasPrefix("/3/device/") || $0.path.hasPrefix("/v1/projects/")
        }
    }

    static func number(_ value: JSONValue?) -> Int? {
        guard case .number(let text)? = value else { return nil }
        return Int(text)
    }

    static func receipts(_ records: [KafkaRecord], run id: String? = nil) -> [JSONValue] {
        records.filter { $0.topic == "push.receipts" }.compactMap { try? JSONParser.parse($0.value) }.filter {
            id == nil || $0["replayRunId"] == .string(id ?? "")
        }
    }

    @Test func aReplayResendsExactlyItsWindowBesideTheLiveWorkerAndSkipsWhatWasDelivered() async throws {
        let run = try await EndToEnd { simulator in
            _ = try await simulator.control(
                "POST", "/control/apns-unregister", body: "{\"tokens\": [\"\(Self.unregistered)\"]}")
        }
        let count = 12
        for index in 0..<count {
            let token = index == 3 ? Self.unregistered : String(format: "%064x", index + 1)
            try await run.produce(EndToEnd.event(index, apnsToken: token), key: "r-\(index % 3)")
        }
        _ = try await run.read(["push.receipts"], count: 2 * count)
        let committed = try await settledOffsets(run, total: Int64(count))
        let before = try await Self.pushes(run).count

        // Offsets [1, 3) of one partition only: exactly those records' sends, each receipt with the run id.
        let input = try await run.read(["chat.messages"], count: count)
        let partition =
            [Int32(0), 1].max { a, b in
                input.filter { $0.partition == a }.count < input.filter { $0.partition == b }.count
            } ?? 0
        let expected = input.filter { $0.partition == partition && (1..<3).contains($0.offset) }
        #expect(expected.count == 2)
        let (first, summary) = try await Self.replay(
            run,
            [
                "--topic", "chat.messages", "--partitions", "\(partition)", "--from", "1", "--to", "\(partition):3",
                "--run-id", "backfill-1",
            ])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Self.number(summary?["records"]) == expected.count)
        #expect(summary?["complete"] == .bool(true))
        #expect(summary?["resumeFrom"] == .string("\(partition):3"), "\(first.stdout)")
        let replayed = Self.receipts(
            try await run.read(["push.receipts"], within: .seconds(30)) {
                Self.receipts($0, run: "backfill-1").count >= 2 * expected.count
            }, run: "backfill-1")
        #expect(replayed.count == 2 * expected.count)
        #expect(
            Set(replayed.compactMap { $0["source"]?["offset"].flatMap(Self.number) })
                == Set(expected.map { Int($0.offset) }))
        let afterFirst = try await Self.pushes(run).count
        let dead = expected.contains { String(decoding: $0.value, as: UTF8.self).contains(Self.unregistered) } ? 1 : 0
        // A token found dead in the live run is skipped by every later send.
        #expect(afterFirst - before == 2 * expected.count - dead)

        // --skip-delivered after the complete run: nothing is sent again; the dead token is skipped as well.
        let (second, skipping) = try await Self.replay(
            run, ["--topic", "chat.messages", "--skip-delivered", "--run-id", "again"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Self.number(skipping?["records"]) == count)
        let afterSkipping = try await Self.pushes(run).count
        // On Tansu, --skip-delivered reads the receipts topic only up to its high watermark, which Tansu puts at the
        // last batch's base offset + 1 (TansuDifferencesTests): it found 16 and 18 of the 23 delivered sends in two
        // runs and sent the others again.
        withKnownIssue("Tansu's high watermark leaves receipts out of the window", isIntermittent: true) {
            #expect(Self.number(skipping?["skipped"]?["already_delivered"]) == 2 * count - 1)
            #expect(afterSkipping == afterFirst)
        } when: {
            run.broker.kind == .tansu
        }
        #expect(Self.number(skipping?["skipped"]?["invalid_token"]) == 1)

        // --dry-run: no request, no record.
        let receiptsBefore = try await run.recordCount(["push.receipts"])
        let (dry, planned) = try await Self.replay(run, ["--topic", "chat.messages", "--dry-run", "--run-id", "dry"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(Self.number(planned?["sends"]) == 2 * count - 1)
        #expect(try await Self.pushes(run).count == afterSkipping)
        #expect(try await run.recordCount(["push.receipts"]) == receiptsBefore)

        // The live group's offsets did not move, and the live worker still delivers.
        #expect(try await committedOffsets(run) == committed)
        try await run.produce(EndToEnd.event(50, apnsToken: String(format: "%064x", 51)), key: "r-0")
        let live = try await run.read(["push.receipts"], within: .seconds(30)) { records in
            Self.receipts(records).contains { $0["messageId"] == .string("m-50") }
        }
        #expect(Self.receipts(live).contains { $0["messageId"] == .string("m-50") && $0["replayRunId"] == .null })
        #expect(await run.stop() == 0)
    }

    @Test func reDrivingTheDeadLetterTopicDeliversTheFailedDevicesOnly() async throws {
        let failing = String(format: "%064x", 7)
        let run = try await EndToEnd(workerEnvironment: ["PUSH_MAX_ATTEMPTS": "1"]) { simulator in
            try await simulator.addFaultRule(#"{"path": "^/3/device/\#(failing)$", "status": 500}"#)
        }
        try await run.produce(EndToEnd.event(6, apnsToken: failing), key: "r-0")
        try await run.produce(EndToEnd.event(7, apnsToken: String(format: "%064x", 8)), key: "r-1")
        let outputs = try await run.read(["push.receipts", "push.dlq"], count: 5)
        #expect(outputs.filter { $0.topic == "push.dlq" }.count == 1)
        _ = try await run.simulator.control("DELETE", "/faults")
        let before = try await Self.pushes(run)

        let (result, summary) = try await Self.replay(run, ["--topic", "push.dlq", "--run-id", "redrive"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.number(summary?["records"]) == 1)
        #expect(Self.number(summary?["sends"]) == 1)
        let redriven = Self.receipts(
            try await run.read(["push.receipts"], within: .seconds(30)) {
                Self.receipts($0, run: "redrive").count >= 1
            },
            run: "redrive")
        #expect(redriven.count == 1)
        #expect(redriven.first?["status"] == .string("delivered"), "\(redriven)")
        #expect(redriven.first?["messageId"] == .string("m-6"))
        #expect(redriven.first?["platform"] == .string("apns"))
        let sent = try await Self.pushes(run).dropFirst(before.count)
        #expect(sent.map(\.path) == ["/3/device/\(failing)"])
        #expect(await run.stop() == 0)
    }

    @Test func aReplayResolvesIMKITMessagesThroughTheRegistryReadToItsEnd() async throws {
        let run = try await EndToEnd()
        let token = String(repeating: "a1", count: 32)
        let registry = [
            (
                "push.devices", "SampleApp/aaa/ios/D1",
                #"{"appID": "SampleApp", "clientId": "aaa", "type": "ios", "token": "\#(token)", "deviceId": "D1"}"#
            ),
            (
                "push.devices", "SampleApp/bbb/ios/D2",
                #"{"appID": "SampleApp", "clientId": "bbb", "type": "ios", "token": "\#(String(repeating: "b2", count: 32))", "deviceId": "D2"}"#
            ),
            ("push.clients", "SampleApp/bbb", #"{"appID": "SampleApp", "clientId": "bbb", "mute": ["demo-room"]}"#),
        ]
        for (topic, key, value) in registry {
            _ = try await run.producer.send(
                KafkaProducerRecord(topic: topic, key: Array(key.utf8), value: Array(value.utf8)))
        }
        try await run.produce(
            #"{"_id": "imkit-1", "message": "lala", "room": "demo-room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "pushToClients": ["aaa", "bbb", "ccc"]}"#,
            key: "demo-room")
        // The live worker's receipts: the message was consumed (what it resolved depends on when it read the registry).
        _ = try await run.read(["push.receipts"], count: 3)
        let before = try await Self.pushes(run).count

        let (result, summary) = try await Self.replay(run, ["--topic", "chat.messages", "--run-id", "imkit"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.number(summary?["sends"]) == 1, "\(result.stdout)")
        let replayed = Self.receipts(
            try await run.read(["push.receipts"], within: .seconds(30)) { Self.receipts($0, run: "imkit").count >= 3 },
            run: "imkit")
        let outline = replayed.map { receipt in
            [receipt["userId"], receipt["platform"], receipt["status"], receipt["reason"]].compactMap {
                $0?.stringValue
            }
            .joined(separator: " ")
        }
        #expect(
            outline.sorted() == ["aaa apns delivered", "bbb apns skipped muted", "ccc none skipped no_devices"])
        let sent = try await Self.pushes(run).dropFirst(before)
        #expect(sent.map(\.path) == ["/3/device/\(token)"])
        #expect(await run.stop() == 0)
    }

    @Test func theRateSpacesSendsAndMaxAgeExpiresStaleEvents() async throws {
        let run = try await EndToEnd()
        for index in 0..<20 {
            try await run.produce(EndToEnd.event(index, device: 1, rooms: 4), key: "r-\(index % 4)")
        }
        _ = try await run.read(["push.receipts"], count: 20)
        let before = try await Self.pushes(run).count
        let started = ContinuousClock.now
        let (paced, summary) = try await Self.replay(
            run, ["--topic", "chat.messages", "--rate", "10", "--run-id", "paced"])
        let elapsed = ContinuousClock.now - started
        #expect(paced.status == 0, "\(paced.stderr)")
        #expect(Self.number(summary?["sends"]) == 20)
        // 20 sends at 10 a second: the last starts 1.9 s after the first.
        #expect(elapsed >= .milliseconds(1_900))
        // Per room, the replay sends in event order, as `run` does (event i is in room r-(i % 4), token fcm-token-i).
        let replayed = try await Self.pushes(run).dropFirst(before).compactMap { request in
            request.body.firstMatch(of: /fcm-token-(\d+)/).flatMap { Int($0.1) }
        }
        #expect(replayed.count == 20)
        for room in 0..<4 {
            let events = replayed.filter { $0 % 4 == room }
            #expect(events == events.sorted(), "room r-\(room): \(events)")
        }
        try await Task.sleep(for: .seconds(2))
        let (stale, expired) = try await Self.replay(run, ["--topic", "chat.messages", "--max-age", "1s", "--dry-run"])
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(Self.number(expired?["sends"]) == 0)
        #expect(Self.number(expired?["statuses"]?["expired"]) == 20)
        #expect(await run.stop() == 0)
    }

    @Test func badOptionsAreUsageErrors() async throws {
        for arguments in [
            ["--from", "0"], ["--topic", "t", "--from", "soon"], ["--topic", "t", "--rate", "0"],
            ["--topic", "t", "--max-age", "5w"], ["--topic", "t", "--format", "yaml"],
        ] {
            let result = try await ChildProcessResult.run(ChildProcess.built("push-worker"), ["replay"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
    }

    /// The live group's committed offsets, once they add up to `total` records (auto-commit runs every 200 ms).
    private func settledOffsets(_ run: EndToEnd, total: Int64) async throws -> [TopicPartition: Int64] {
        let deadline = ContinuousClock.now + .seconds(20)
        var offsets = try await committedOffsets(run)
        while offsets.values.reduce(0, +) < total, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            offsets = try await committedOffsets(run)
        }
        return offsets
    }

    private func committedOffsets(_ run: EndToEnd) async throws -> [TopicPartition: Int64] {
        let consumer = try KafkaConsumer(
            configuration: run.kafka.merging(KafkaConfiguration(["group.id": "push-worker"])))
        let offsets = try await consumer.committedOffsets(of: [
            TopicPartition("chat.messages", 0), TopicPartition("chat.messages", 1),
        ])
        _ = await consumer.close(timeout: .seconds(5))
        return offsets
    }
}
