import Essentials
import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
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

    /// `count` subscriptions on `push.devices`, clients `c00000`…, written in batches of 1,000.
    static func produceDevices(_ run: EndToEnd, count: Int) async throws {
        let records = (0..<count).map { index in
            let (key, value) = subscription(
                String(format: "c%05d", index), "D", token: String(format: "%064x", index + 1))
            return KafkaProducerRecord(topic: "push.devices", key: Array(key.utf8), value: Array((value ?? "").utf8))
        }
        for start in stride(from: 0, to: count, by: 1000) {
            for case .failure(let error) in await run.producer.send(Array(records[start..<min(start + 1000, count)])) {
                throw error
            }
        }
    }

    /// An end-to-end run whose first worker (on no store) is already stopped, 30,000 devices on `push.devices`,
    /// and the environment of a worker on an LMDB store in a new directory.
    static func stoppedRunWithDevices() async throws -> (EndToEnd, [String: String], String) {
        let directory = try Repository.temporaryDirectory().path
        let run = try await EndToEnd()
        _ = try await scrape(run.worker) { _ in true }
        run.worker.signal(SIGTERM)
        #expect(await run.worker.exitStatus() == 0)
        try await produceDevices(run, count: 30_000)
        let environment = run.workerEnvironment.merging([
            "PUSH_WORKER_ID": "worker-lmdb", "PUSH_DEVICE_STORE": "lmdb:\(directory)",
        ]) { $1 }
        return (run, environment, directory)
    }

    /// Stops `worker` with SIGTERM and the run's other processes; the worker's exit status.
    static func stop(_ worker: ChildProcess, _ run: EndToEnd) async -> Int32? {
        worker.signal(SIGTERM)
        let status = await worker.exitStatus()
        _ = await run.stop()
        return status
    }

    @Test func aSecondWorkerOnTheDirectoryExitsThreeNamingTheLock() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await EndToEnd(workerEnvironment: [
            "PUSH_WORKER_ID": "worker-lmdb", "PUSH_DEVICE_STORE": "lmdb:\(directory.path)",
        ])
        _ = try await Self.scrape(run.worker) { _ in true }
        let second = try run.startWorker(id: "worker-lmdb-2")
        #expect(await second.exitStatus() == 3)
        #expect(
            second.stderr.text.contains("\(directory.path)/push-worker.lock: another process uses this store"),
            "\(second.stderr.text)")
        #expect(run.worker.isRunning)
        #expect(await run.stop() == 0)
    }

    enum Damage: String, CaseIterable, Sendable {
        case cutToHalf
        case garbageOverEverySeventhPage
    }

    @Test(arguments: Damage.allCases)
    func aDamagedFileIsMovedAsideAndTheStoreRebuiltFromTheTopics(damage: Damage) async throws {
        let (run, environment, directory) = try await Self.stoppedRunWithDevices()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try workerProcess(environment: environment)
        _ = try await Self.scrape(first) { $0.contains("push_registry_devices 30000") }
        first.signal(SIGTERM)
        #expect(await first.exitStatus() == 0)

        let file = directory + "/data.mdb"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        switch damage {
        case .cutToHalf:
            #expect(truncate(file, off_t(size / 2)) == 0)
        case .garbageOverEverySeventhPage:
            let handle = try #require(FileHandle(forUpdatingAtPath: file))
            var generator = SeededGenerator(seed: 7)
            for page in stride(from: 0, to: size / 4096, by: 7) {
                try handle.seek(toOffset: UInt64(page * 4096))
                try handle.write(contentsOf: Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            }
            try handle.close()
        }
        // Every start finds the file as the damage left it, and loads.
        for start in 0..<2 {
            let worker = try workerProcess(environment: environment)
            let scrape = try await Self.scrape(worker) { $0.contains("push_registry_devices 30000") }
            worker.signal(SIGTERM)
            #expect(await worker.exitStatus() == 0, "\(worker.stderr.text)")
            #expect(scrape.contains("push_registry_devices 30000"))
            let reason = damage == .cutToHalf ? "truncated" : "meta"
            #expect(scrape.contains(#"push_registry_store_rebuilds_total{reason="\#(reason)"} 1"#), "\(scrape)")
            #expect(worker.stderr.text.contains("device store damaged, moved aside"), "start \(start)")
            #expect(FileManager.default.fileExists(atPath: directory + "/data.mdb.damaged"))
            // The next start finds the same damage again.
            try FileManager.default.removeItem(atPath: file)
            try FileManager.default.moveItem(atPath: directory + "/data.mdb.damaged", toPath: file)
        }
        _ = await run.stop()
    }

    @Test func aWorkerKilledDuringItsFirstLoadLoadsAgainAtTheNextStart() async throws {
        let (run, environment, directory) = try await Self.stoppedRunWithDevices()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let killed = try workerProcess(environment: environment)
        let marker = directory + "/loading"
        #expect(
            await eventually(within: .seconds(30), every: .milliseconds(2)) {
                FileManager.default.fileExists(atPath: marker)
            })
        killed.signal(SIGKILL)
        #expect(await killed.exitStatus() == SIGKILL)
        #expect(FileManager.default.fileExists(atPath: marker))

        let worker = try workerProcess(environment: environment)
        let scrape = try await Self.scrape(worker) { $0.contains("push_registry_devices 30000") }
        #expect(scrape.contains("push_registry_devices 30000"))
        #expect(scrape.contains(#"push_registry_records_total{topic="devices"} 30000"#))
        #expect(!FileManager.default.fileExists(atPath: marker))
        #expect(await Self.stop(worker, run) == 0)
    }

    /// A file-size limit of 1 MiB (`RLIMIT_FSIZE`, with SIGXFSZ ignored as a full disk raises none) under a load of
    /// an 8 MiB file: the load fails with the reason and goes on trying, the worker neither dies nor turns ready; the
    /// next start without the limit loads everything.
    @Test func aDiskThatRefusesWritesFailsTheLoadClearlyAndTheNextStartLoads() async throws {
        let (run, environment, directory) = try await Self.stoppedRunWithDevices()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let limited = try ChildProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", #"trap '' XFSZ; exec prlimit --fsize=1048576 "$0" run"#, ChildProcess.built("push-worker").path],
            environment: environment)
        #expect(
            await eventually(within: .seconds(60), every: .milliseconds(50)) {
                limited.stderr.text.contains("the disk refused a write")
            }, "\(limited.stderr.text)")
        #expect(limited.stderr.text.contains("cannot follow the registry topic"))
        #expect(limited.isRunning)
        limited.signal(SIGTERM)
        #expect(await limited.exitStatus() == 0, "\(limited.stderr.text)")

        let worker = try workerProcess(environment: environment)
        let scrape = try await Self.scrape(worker) { $0.contains("push_registry_devices 30000") }
        #expect(scrape.contains("push_registry_devices 30000"))
        #expect(await Self.stop(worker, run) == 0)
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
