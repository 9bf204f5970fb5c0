import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import TestSupport
import Testing

/// Hostile input reproduced against the real processes (`push-worker dev-broker`, `push-worker run`).
@Suite(.serialized) struct WorkerHardeningTests {
    /// On main: the type was copied into `x-dlq-error`, the dead letter refused even without its value, and
    /// produced again 14,000 times in 42 s while the partition's offset never moved.
    @Test func aMegabyteTypeUnderTheDeadLetterPolicyIsDeadLetteredOnceAndThePartitionMoves() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = directory.appendingPathComponent("rules.json")
        try Data(#"{"types": {"text": {}}, "unknownType": {"policy": "deadLetter"}}"#.utf8).write(to: rules)
        let run = try await EndToEnd(
            workerEnvironment: ["PUSH_RULES_FILE": rules.path], producerProperties: ["message.max.bytes": "4000000"])
        let hostile = [1_000_000, 100_000].map { length in
            #"{"id": "m-type-\#(length)", "type": "\#(String(repeating: "t", count: length))", "room": {"id": "r-0"}, "#
                + #""sender": {"id": "u-1"}, "recipients": [{"userId": "u-2", "devices": [{"platform": "apns", "#
                + #""token": "\#(String(repeating: "ab", count: 32))"}]}]}"#
        }
        for value in hostile { try await run.produce(value, key: "r-0") }
        try await run.produce(EndToEnd.event(1, apnsToken: String(format: "%064x", 1)), key: "r-0")
        let outputs = try await run.read(["push.receipts", "push.dlq"], within: .seconds(90)) { records in
            records.filter { $0.topic == "push.dlq" }.count >= 2 && Self.receipts(of: "m-1", in: records) >= 2
        }
        let produceFailures = run.worker.stderr.lines.filter { $0.contains("kafka produce failed") }.count
        #expect(await run.stop() == 0)
        // In input order: the two records' outputs are produced concurrently, and the refused one goes again.
        let deadLetters = outputs.filter { $0.topic == "push.dlq" }.sorted {
            Self.sourceOffset($0) < Self.sourceOffset($1)
        }
        #expect(deadLetters.count == 2)
        // Each failure header is at most 1 KB; the megabyte event goes without its value, the other with it.
        for record in deadLetters {
            #expect(record.headers.allSatisfy { ($0.value?.count ?? 0) <= 1024 })
        }
        #expect(deadLetters.first?.value.isEmpty == true)
        #expect(deadLetters.last?.value.count ?? 0 > 100_000)
        #expect(Self.receipts(of: "m-1", in: outputs) == 2)
        #expect(produceFailures <= 2, "\(produceFailures) produce failures logged")
    }

    static func sourceOffset(_ record: KafkaRecord) -> Int64 {
        record.headers.first { $0.name == "x-source-offset" }?.value.flatMap {
            Int64(String(decoding: $0, as: UTF8.self))
        }
            ?? -1
    }

    static func receipts(of messageId: String, in records: [KafkaRecord]) -> Int {
        records.filter { $0.topic == "push.receipts" && $0.key == Array(messageId.utf8) }.count
    }

    /// On main: a fatal producer error made every produce throw for ever while polling went on, so the watchdog
    /// never fired. Also: Kubernetes' service links for a Service named `kafka` do not stop the start.
    @Test func aFatalProducerErrorStopsTheWorkerWithExitOneAndNothingCommitted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fatal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (broker, bootstrap) = try await startDevBroker()
        let kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        let producer = try KafkaProducer(configuration: kafka)
        for index in 0..<3 {
            _ = try await producer.send(
                KafkaProducerRecord(topic: "chat.messages", key: Array("r-0".utf8), value: Array("junk \(index)".utf8)))
        }
        _ = await producer.close(timeout: .seconds(5))
        // The worker's first produce request (the first dead letter) fails with a sequence error: librdkafka's
        // idempotent producer raises a fatal error.
        try await broker.control("request-errors Produce 1 OUT_OF_ORDER_SEQUENCE_NUMBER")
        let group = "fatal-\(UUID().uuidString.prefix(8))"
        let worker = try workerProcess(environment: [
            "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "KAFKA_GROUP_ID": group,
            "FCM_SERVICE_ACCOUNT_FILE": try WorkerProcessTests().serviceAccount(in: directory),
            "PUSH_HTTP_PORT": "0", "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_SHUTDOWN_GRACE_SECONDS": "2",
            "KAFKA_SESSION_TIMEOUT_MS": "6000", "KAFKA_HEARTBEAT_INTERVAL_MS": "300",
            "KAFKA_PORT": "tcp://10.0.0.7:9092", "KAFKA_SERVICE_HOST": "10.0.0.7",
            "KAFKA_PORT_9092_TCP_ADDR": "10.0.0.7",
        ])
        #expect(await worker.exitStatus(within: .seconds(90)) == 1)
        let lines = worker.stderr.lines
        let fatal = lines.filter { $0.contains("kafka client failed fatally, stopping") }
        #expect(fatal.count == 1)
        #expect(fatal.first?.contains(#""kafka.client":"producer""#) == true)
        #expect(fatal.first?.contains("OUT_OF_ORDER_SEQUENCE_NUMBER") == true)
        let ignored = lines.filter { $0.contains("KAFKA_* variables that name no librdkafka property ignored") }
        #expect(ignored.count == 1)
        #expect(ignored.first?.contains("KAFKA_PORT,KAFKA_PORT_9092_TCP_ADDR,KAFKA_SERVICE_HOST") == true)
        let checker = try KafkaConsumer(configuration: kafka.merging(KafkaConfiguration(["group.id": group])))
        let partitions = (Int32(0)..<2).map { TopicPartition("chat.messages", $0) }
        #expect(try await checker.committedOffsets(of: partitions).isEmpty)
        _ = await checker.close(timeout: .seconds(5))
        _ = try? await broker.terminate()
    }
}
