import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import Synchronization
import TestSupport

/// A topic of its own on the broker under a test, and clients configured for it with fast group timings.
protocol TestTopic: Sendable {
    var bootstrapServers: String { get }
    var topic: String { get }
}

extension TestTopic {
    var bootstrap: KafkaConfiguration {
        KafkaConfiguration([
            "bootstrap.servers": bootstrapServers, "topic.metadata.refresh.interval.ms": "1000",
        ])
    }

    func consumerConfiguration(group: String = "group-\(UUID().uuidString.prefix(8))") -> KafkaConfiguration {
        bootstrap.merging(
            KafkaConfiguration([
                "group.id": group,
                "session.timeout.ms": "6000",
                "heartbeat.interval.ms": "300",
                "auto.commit.interval.ms": "200",
                "statistics.interval.ms": "500",
                "fetch.wait.max.ms": "50",
            ]))
    }

    func producer(holdsWhileInFlight: Bool = false) throws -> KafkaProducer {
        try KafkaProducer(
            configuration: bootstrap.merging(KafkaConfiguration(["linger.ms": "2"])),
            holdsWhileInFlight: holdsWhileInFlight)
    }

    /// Writes `count` records `value-i` (in order) with key `key-(i % keys)` and waits for every report.
    @discardableResult
    func produce(_ count: Int, keys: Int = 10, partition: Int32? = nil, with producer: KafkaProducer)
        async throws -> [KafkaDeliveryReport]
    {
        let reports = Shared<[Result<KafkaDeliveryReport, KafkaError>]>([])
        for index in 0..<count {
            let record = KafkaProducerRecord(
                topic: topic, partition: partition, key: Array("key-\(index % keys)".utf8),
                value: Array("value-\(index)".utf8))
            try producer.send(record) { result in reports.update { $0.append(result) } }
        }
        try await producer.flush(timeout: .seconds(30))
        return try reports.value.map { try $0.get() }
    }
}

/// A mock cluster with one topic per test: the one with fault injection.
struct TestCluster: TestTopic {
    let cluster: MockCluster
    let topic: String

    init(partitions: Int, brokers: Int = 3) throws {
        cluster = try MockCluster(brokers: brokers)
        topic = "test-\(UUID().uuidString.prefix(8))"
        try cluster.createTopic(topic, partitions: partitions)
    }

    var bootstrapServers: String { cluster.bootstrapServers }
}

/// Tansu, a real broker (`deploy/local/tansu.py`), with one topic: for the tests whose figures are the broker's group
/// protocol, with `PUSH_TEST_BROKER=tansu`. It stops when the value is gone (or with `stop`).
struct TansuTopic: TestTopic {
    let broker: DevBrokerProcess
    let bootstrapServers: String
    let topic = "test-tansu"

    init(partitions: Int) async throws {
        broker = try DevBrokerProcess(tansuWithTopics: [topic], partitions: partitions)
        bootstrapServers = try await broker.bootstrapServers(within: .seconds(30))
    }

    func stop() async {
        _ = try? await broker.terminate()
    }
}

extension TestCluster {
    /// Writes `count` records to `partition` and reads them back with a fresh consumer assigned there from the
    /// beginning (at most 30 s); the consumer stays open for the test to go on with.
    func produceAndConsume(_ count: Int, at partition: TopicPartition) async throws -> (KafkaConsumer, [KafkaRecord]) {
        try await produce(count, partition: partition.partition, with: try producer())
        let consumer = try KafkaConsumer(configuration: consumerConfiguration())
        try await consumer.assign([partition: .beginning])
        return (consumer, try await consume(consumer, count: count))
    }
}

/// Polls `consumer` until `count` records arrived or `limit` passed (bounded in time and iterations).
func consume(
    _ consumer: KafkaConsumer, count: Int, within limit: Duration = .seconds(30),
    onBatch: ([KafkaRecord]) throws -> Void = { _ in }
) async throws -> [KafkaRecord] {
    var records: [KafkaRecord] = []
    let deadline = ContinuousClock.now + limit
    while records.count < count, ContinuousClock.now < deadline {
        let batch = try await consumer.poll(maxRecords: 1000, timeout: .milliseconds(100))
        try onBatch(batch)
        records += batch
    }
    return records
}

/// Polls for `duration`, returning whatever arrives (for "nothing more arrives" checks).
func drain(_ consumer: KafkaConsumer, for duration: Duration) async throws -> [KafkaRecord] {
    var records: [KafkaRecord] = []
    let deadline = ContinuousClock.now + duration
    while ContinuousClock.now < deadline {
        records += try await consumer.poll(maxRecords: 1000, timeout: .milliseconds(100))
    }
    return records
}

extension KafkaRecord {
    var text: String { String(decoding: value, as: UTF8.self) }
}
