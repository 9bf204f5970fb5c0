import IntegrationSupport
import Kafka
import KafkaTypes
import Testing

/// Where Tansu 0.6.0, the real broker under the group tests, differs from Kafka in ways the tests depend on
/// (docs/kafka.md, "Where Tansu falls short of Kafka"), each pinned to Tansu's behaviour today: a Tansu that fixes one
/// fails its test, and the table and the known issues that follow from it are then updated. Against Tansu whatever
/// `PUSH_TEST_BROKER` says, from the test process's own librdkafka.
@Suite(.serialized) struct TansuDifferencesTests {
    static var current: Bool { KafkaLibrary.versionNumber >= KafkaLibrary.firstCurrentVersion }

    /// Kafka's high watermark is the last offset + 1. Tansu answers `ListOffsets` (latest) with the last batch's base
    /// offset + 1, so a reader that plans its window's end from it (`replay`, `receipts stats`, `devices stats`) leaves
    /// the rest of that batch out; fetching reads every record.
    @Test(.enabled(if: current, "librdkafka below 2.2 cannot reach Tansu"))
    func theHighWatermarkAfterABatchIsItsBaseOffsetPlusOne() async throws {
        let broker = try DevBrokerProcess(tansuWithTopics: ["batches"], partitions: 1)
        let servers = try await broker.bootstrapServers()
        let producer = try KafkaProducer(
            configuration: KafkaConfiguration(["bootstrap.servers": servers, "linger.ms": "200"]))
        _ = try await producer.send(KafkaProducerRecord(topic: "batches", partition: 0, value: [0]))
        // Three records in one batch (the linger holds them together): offsets 1, 2, 3.
        let reports = await producer.send(
            (1...3).map { KafkaProducerRecord(topic: "batches", partition: 0, value: [$0]) })
        #expect(reports.map { (try? $0.get())?.offset } == [1, 2, 3])
        let reader = try KafkaConsumer(
            configuration: KafkaConfiguration(["bootstrap.servers": servers, "group.id": "watermarks"]))
        let marks = try await reader.watermarks(of: TopicPartition("batches", 0))
        #expect(marks.high == 2, "Kafka says 4: Tansu answered \(marks.high)")
        _ = await reader.close(timeout: .seconds(5))
        _ = try? await broker.terminate()
    }

    /// librdkafka below 2.2 cannot parse Tansu's `ApiVersions` v3 answer (its tagged fields: "Read underflow"), so
    /// it never gets metadata; 2.2 and later do.
    @Test func onlyACurrentLibrdkafkaReachesTansu() async throws {
        let broker = try DevBrokerProcess(tansuWithTopics: ["reachable"], partitions: 2)
        let servers = try await broker.bootstrapServers()
        let producer = try KafkaProducer(configuration: KafkaConfiguration(["bootstrap.servers": servers]))
        let partitions = try? await producer.partitions(of: "reachable", timeout: .seconds(5))
        #expect(partitions == (Self.current ? [0, 1] : nil), "librdkafka \(KafkaLibrary.version)")
        _ = try? await broker.terminate()
    }
}
