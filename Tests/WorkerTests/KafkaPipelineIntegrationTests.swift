import Essentials
import Foundation
import Kafka
import KafkaTypes
import PushPipeline
import TestSupport
import Testing

@testable import Adapters

/// The pipeline over the real Kafka adapters and librdkafka's mock cluster (over TCP on loopback),
/// with the fake planner and sender: consume, receipts and dead letters produced, offsets committed.
@Suite(.serialized) struct KafkaPipelineIntegrationTests {
    @Test func consumesSendsWritesReceiptsAndCommitsThroughTheMockCluster() async throws {
        let cluster = try MockCluster(brokers: 1)
        let retryTiers = RetryTiers(base: "retry")
        for (topic, partitions) in [("chat", 3), ("receipts", 1), ("dlq", 1)] + retryTiers.topics.map({ ($0, 1) }) {
            try cluster.createTopic(topic, partitions: partitions)
        }
        let common = KafkaConfiguration([
            "bootstrap.servers": cluster.bootstrapServers, "topic.metadata.refresh.interval.ms": "1000",
        ])
        let producer = try KafkaProducer(configuration: common.merging(KafkaConfiguration(["linger.ms": "2"])))
        for index in 0..<30 {
            _ = try await producer.send(
                KafkaProducerRecord(
                    topic: "chat", key: Array("room-\(index % 5)".utf8), value: Array("m\(index);a,b".utf8)))
        }
        _ = try await producer.send(
            KafkaProducerRecord(topic: "chat", key: Array("room-x".utf8), value: Array("junk".utf8)))

        let group = "workers-\(UUID().uuidString.prefix(8))"
        let consumerConfiguration = common.merging(
            KafkaConfiguration([
                "group.id": group, "session.timeout.ms": "6000", "heartbeat.interval.ms": "300",
                "auto.commit.interval.ms": "200", "fetch.wait.max.ms": "50",
            ]))
        let source = try await KafkaRecordSource(
            configuration: consumerConfiguration, topics: ["chat"] + retryTiers.topics)
        let sender = FakeSender()
        var settings = PipelineSettings(
            inputTopics: ["chat"], retryTiers: retryTiers, receiptsTopic: "receipts", deadLetterTopic: "dlq",
            group: group,
            worker: "worker-it")
        settings.shutdownGracePeriod = .seconds(10)
        let pipeline = Pipeline(
            source: source, sink: KafkaRecordSink(producer: producer), planner: FakePlanner(), sender: sender,
            retryPolicy: LinearDelays(), clock: SystemWallClock(), observer: RecordingObserver(), settings: settings)
        let running = Task { await pipeline.run() }
        #expect(await eventually(within: .seconds(60)) { sender.sent.count >= 60 })
        try await Task.sleep(for: .milliseconds(500))
        pipeline.shutdown()
        #expect(await running.value == .shutDown(unfinished: 0))

        let reader = try KafkaConsumer(
            configuration: common.merging(KafkaConfiguration(["group.id": "\(group)-reader"])))
        let checker = try KafkaConsumer(configuration: consumerConfiguration)
        let chat = (0..<3).map { TopicPartition("chat", Int32($0)) }
        var ends: [TopicPartition: Int64] = [:]
        for partition in chat { ends[partition] = try await reader.watermarks(of: partition).high }
        #expect(try await checker.committedOffsets(of: chat) == ends)
        try await reader.assign([
            TopicPartition("receipts", 0): .beginning, TopicPartition("dlq", 0): .beginning,
        ])
        var outputs: [KafkaRecord] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while outputs.count < 61, ContinuousClock.now < deadline {
            outputs += try await reader.poll(maxRecords: 500, timeout: .milliseconds(100))
        }
        #expect(outputs.filter { $0.topic == "receipts" }.count == 60)
        let deadLetters = outputs.filter { $0.topic == "dlq" }
        #expect(deadLetters.map { String(decoding: $0.value, as: UTF8.self) } == ["junk"])
        #expect(deadLetters.first?.headers.first { $0.name == "x-dlq-reason" }?.value == Array("decode_error".utf8))
        _ = await reader.close(timeout: .seconds(5))
        _ = await checker.close(timeout: .seconds(5))
        _ = await producer.close(timeout: .seconds(5))
    }
}
