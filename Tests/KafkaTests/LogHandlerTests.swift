import KafkaTypes
import TestSupport
import Testing

@testable import Kafka

@Suite(.serialized, .timeLimit(.minutes(1)))
struct LogHandlerTests {
    @Test func librdkafkaLogLinesReachTheHandlerOfTheirClient() async throws {
        let test = try TestCluster(partitions: 1, brokers: 1)
        try test.cluster.setBrokerDown(1)
        let producerLines = Shared<[KafkaLogMessage]>([])
        let consumerLines = Shared<[KafkaLogMessage]>([])
        let producer = try KafkaProducer(
            configuration: test.bootstrap,
            logHandler: { line in
                producerLines.update { $0.append(line) }
            })
        let consumer = try KafkaConsumer(
            configuration: test.consumerConfiguration(),
            logHandler: { line in
                consumerLines.update { $0.append(line) }
            })
        try await consumer.assign([TopicPartition(test.topic, 0): .beginning])
        for _ in 0..<200 where producerLines.value.isEmpty || consumerLines.value.isEmpty {
            _ = try? await consumer.poll(timeout: .milliseconds(50))
        }
        #expect(producerLines.value.contains { $0.severity <= 4 && !$0.facility.isEmpty && !$0.message.isEmpty })
        #expect(consumerLines.value.contains { $0.severity <= 4 && !$0.facility.isEmpty && !$0.message.isEmpty })
        await consumer.close(timeout: .seconds(2))
        await producer.close(timeout: .seconds(2))
    }
}
