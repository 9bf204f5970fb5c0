import Essentials
import Foundation
import IntegrationSupport
import Kafka
import PushCore
import TestSupport
import Testing

/// `push-worker run` with `PUSH_DEVICE_STORE=lmdb:/path` on the dev broker and the push simulator: restarted, the
/// worker reads only the registry records written after what its file holds, and resolves IMKIT messages the same.
@Suite(.serialized) struct WorkerLMDBStoreTests {
    static func token(_ byte: String) -> String { String(repeating: byte, count: 32) }

    static func subscription(_ client: String, _ device: String, token: String) -> (String, String?) {
        (
            "SampleApp/\(client)/ios/\(device)",
            #"{"appID": "SampleApp", "clientId": "\#(client)", "type": "ios", "token": "\#(token)", "deviceId": "\#(device)"}"#
        )
    }

    @Test func aRestartedWorkerResumesFromTheStoredOffsetsAndResolvesTheSame() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await EndToEnd(workerEnvironment: [
            "PUSH_WORKER_ID": "worker-lmdb", "PUSH_DEVICE_STORE": "lmdb:\(directory.path)",
        ])
        func produce(_ topic: String, _ record: (String, String?)) async throws {
            _ = try await run.producer.send(
                KafkaProducerRecord(
                    topic: topic, key: Array(record.0.utf8), value: record.1.map { Array($0.utf8) } ?? []))
        }
        for record in [
            Self.subscription("aaa", "D1", token: Self.token("a1")),
            Self.subscription("bbb", "D2", token: Self.token("b2")),
            Self.subscription("ccc", "D3", token: Self.token("c3")),
        ] {
            try await produce("push.devices", record)
        }
        try await produce(
            "push.clients", ("SampleApp/ccc", #"{"appID": "SampleApp", "clientId": "ccc", "mute": ["demo-room"]}"#))
        let firstScrape = try await Self.scrape(run.worker) {
            $0.contains(#"push_registry_records_total{topic="devices"} 3"#)
                && $0.contains(#"push_registry_records_total{topic="clients"} 1"#)
        }
        run.worker.signal(SIGTERM)
        #expect(await run.worker.exitStatus() == 0)

        // Written while no worker runs: a new device, and bbb unsubscribed.
        try await produce("push.devices", Self.subscription("ddd", "D4", token: Self.token("d4")))
        try await produce("push.devices", ("SampleApp/bbb/ios/D2", nil))
        try run.startWorker(replacing: true, id: "worker-lmdb")
        let secondScrape = try await Self.scrape(run.worker) { _ in true }
        try await run.produce(
            #"{"_id": "lmdb-1", "message": "lala", "room": "demo-room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "pushToClients": ["aaa", "bbb", "ccc", "ddd"]}"#,
            key: "demo-room")
        let receipts = try await run.read(["push.receipts"], count: 4, within: .seconds(60))
        #expect(await run.stop() == 0)

        #expect(firstScrape.contains("push_registry_devices 3"), "\(firstScrape)")
        // Only the two records written while it was down: the first four came from the file.
        #expect(secondScrape.contains(#"push_registry_records_total{topic="devices"} 2"#), "\(secondScrape)")
        #expect(secondScrape.contains(#"push_registry_records_total{topic="clients"} 0"#))
        #expect(secondScrape.contains("push_registry_devices 3"))
        #expect(secondScrape.contains("push_registry_settings 1"))
        let outline = receipts.compactMap { try? JSONParser.parse($0.value) }.map { receipt in
            [receipt["userId"], receipt["platform"], receipt["status"], receipt["reason"]]
                .map { $0?.stringValue ?? "-" }.joined(separator: " ")
        }
        #expect(
            outline.sorted() == [
                "aaa apns delivered -", "bbb none skipped no_devices", "ccc apns skipped muted",
                "ddd apns delivered -",
            ])
    }

    /// The worker's scrape once it is ready (both registry topics read, the pipeline started) and `done` holds of
    /// it, or the last one after 60 s.
    static func scrape(_ worker: ChildProcess, until done: (String) -> Bool) async throws -> String {
        let started = await eventually(within: .seconds(30), every: .milliseconds(50)) {
            WorkerScrapeTests.statusPort(in: worker.stderr.text) != nil
        }
        let port = try #require(
            started ? WorkerScrapeTests.statusPort(in: worker.stderr.text) : nil, "\(worker.stderr.text)")
        let readiness = try await WorkerScrapeTests.readiness(port: port)
        #expect(readiness.status == 200, "\(readiness.body)")
        var scrape = try WorkerScrapeTests.get(port: port, "/metrics").body
        let deadline = ContinuousClock.now + .seconds(60)
        while !done(scrape), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            scrape = try WorkerScrapeTests.get(port: port, "/metrics").body
        }
        return scrape
    }
}
