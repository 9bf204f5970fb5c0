import TestSupport
import Testing

@testable import Kafka

@Suite(.serialized, .timeLimit(.minutes(1)))
struct PropertyScopeTests {
    @Test func oneConfigurationServesBothClientsWithoutConfigurationWarnings() async throws {
        let test = try TestCluster(partitions: 1, brokers: 1)
        let shared = test.consumerConfiguration().merging(KafkaConfiguration(["acks": "all", "linger.ms": "5"]))
        let lines = Shared<[KafkaLogMessage]>([])
        let producer = try KafkaProducer(
            configuration: shared, logHandler: { line in lines.update { $0.append(line) } })
        let consumer = try KafkaConsumer(
            configuration: shared, logHandler: { line in lines.update { $0.append(line) } })
        #expect(producer.properties["group.id"] == nil)
        #expect(producer.properties["session.timeout.ms"] == nil)
        #expect(producer.properties["linger.ms"] == "5")
        #expect(consumer.properties["acks"] == nil)
        #expect(consumer.properties["linger.ms"] == nil)
        #expect(consumer.properties["group.id"] == shared["group.id"])
        #expect(!lines.value.contains { $0.facility == "CONFWARN" })
        await consumer.close(timeout: .seconds(2))
        await producer.close(timeout: .seconds(2))
    }
}
