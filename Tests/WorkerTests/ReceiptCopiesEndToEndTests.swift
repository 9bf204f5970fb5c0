import Essentials
import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import PushPipeline
import TestSupport
import Testing

/// The receipts of a real run with a kill -9 in the middle, as analysts read them: `receipts stats` and the
/// ClickHouse kit (in embedded ClickHouse, chdb) both count each device send once and report the copies the
/// restart wrote.
@Suite(.serialized) struct ReceiptCopiesEndToEndTests {
    /// Receipts of the topic that were written again on purpose, beside the ones the kill causes: copies are
    /// certain even when the kill fell where no send was repeated.
    static let extraCopies = 5

    @Test func afterAKillTheStatisticsAndTheWarehouseCountEachSendOnceAndReportTheCopies() async throws {
        // A commit interval of 1 s leaves up to a second of finished sends uncommitted at the kill: the
        // replacement repeats them, and their receipts are copies.
        let (count, rooms) = (3_000, 30)
        let run = try await EndToEnd(workerEnvironment: [
            "PUSH_MAX_IN_FLIGHT": "200", "PUSH_BATCH_SIZE": "100", "KAFKA_AUTO_COMMIT_INTERVAL_MS": "1000",
        ]) { simulator in
            try await simulator.addFaultRule("{\"path\": \".\", \"latency_ms\": 20}")
        }
        try await run.produce(
            (0..<count).map { index in
                (key: "r-\(index % rooms)", value: EndToEnd.event(index, device: index % 2, rooms: rooms))
            })
        let deadline = ContinuousClock.now + .seconds(180)
        while try await run.simulator.stats().streams < count / 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let atKill = try await run.simulator.stats().streams
        run.worker.signal(SIGKILL)
        _ = await run.worker.exitStatus()
        _ = try await run.simulator.control("POST", "/control/apns-reset", body: "{}")
        try run.startWorker(replacing: true)
        let sent = try await run.read(["push.receipts"], within: .seconds(180)) { ReceiptCount($0).distinct >= count }
        run.worker.signal(SIGTERM)
        #expect(await run.worker.exitStatus() == 0)
        for record in sent.prefix(Self.extraCopies) {
            _ = try await run.producer.send(
                KafkaProducerRecord(
                    topic: record.topic, partition: record.partition, key: record.key, value: record.value,
                    headers: record.headers))
        }

        let environment = ["KAFKA_BOOTSTRAP_SERVERS": run.workerEnvironment["KAFKA_BOOTSTRAP_SERVERS"] ?? ""]
        let everyCopy = try await Self.stats(["--count-copies"], environment: environment)
        let written = Int(Self.number(everyCopy["total"]) ?? -1)
        let records = try await run.read(["push.receipts"], count: written)
        let receipts = ReceiptCount(records)
        let stats = try await Self.stats([], environment: environment)
        let warehouse = try await Self.warehouse(records)
        _ = await run.producer.close(timeout: .seconds(5))
        _ = try? await run.broker.terminate()
        await run.simulator.stop()

        print(
            "kill -9 after \(atKill) of \(count) sends: \(written) receipts, \(receipts.duplicates) copies "
                + "(\(Self.extraCopies) written again by the test)")
        #expect(atKill < count)
        #expect(receipts.distinct == count)
        #expect(receipts.duplicates >= Self.extraCopies)
        #expect(
            records.allSatisfy { record in
                let header = record.headers.first { $0.name == ReceiptID.header }?.value
                let body = (try? JSONParser.parse(record.value))?["receiptId"]?.stringValue
                return header.map { String(decoding: $0, as: UTF8.self) } == body && body != nil
            })
        #expect(Self.number(warehouse["total"]) == Double(count))
        #expect(Self.number(warehouse["copies"]?["dropped"]) == Double(receipts.duplicates))
        let onTansu = run.broker.kind == .tansu
        // On Tansu, `receipts stats` reads only up to the high watermark, which Tansu puts at the last batch's base
        // offset + 1 (TansuDifferencesTests): the newest receipts of a partition may be left out of its counts.
        withKnownIssue("Tansu's high watermark leaves receipts out of the stats window", isIntermittent: true) {
            #expect(records.count == written)
            #expect(Self.number(stats["total"]) == Double(count))
            #expect(Self.number(stats["copies"]?["dropped"]) == Double(receipts.duplicates))
            #expect(stats["byStatus"] == warehouse["byStatus"])
        } when: {
            onTansu
        }
    }

    static func stats(_ arguments: [String], environment: [String: String]) async throws -> JSONValue {
        let result = try await ChildProcessResult.run(
            ChildProcess.built("push-worker"), ["receipts", "stats", "--format", "json"] + arguments,
            environment: environment)
        try #require(result.status == 0, "receipts stats: \(result.stderr)")
        return try JSONParser.parse(Array(result.stdout.utf8))
    }

    /// The kit's answer on `records`, with their topic positions and timestamps.
    static func warehouse(_ records: [KafkaRecord]) async throws -> JSONValue {
        try await AnalyticsKit.report(
            records.map { record in
                AnalyticsKit.Record(
                    topic: record.topic, partition: record.partition, offset: record.offset,
                    timestampMillis: record.timestampMilliseconds, value: String(decoding: record.value, as: UTF8.self))
            })
    }

    static func number(_ value: JSONValue?) -> Double? {
        guard case .number(let text)? = value else { return nil }
        return Double(text)
    }
}
