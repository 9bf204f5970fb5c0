import KafkaTypes
import TestSupport
import Testing

@testable import Kafka

@Suite(.serialized, .timeLimit(.minutes(1)))
struct FatalErrorTests {
    @Test func fatalProducerErrorIsSurfacedAndFailsLaterSends() async throws {
        let test = try TestCluster(partitions: 1, brokers: 1)
        let reported = Shared<[KafkaError]>([])
        let producer = try KafkaProducer(configuration: test.bootstrap) { error in reported.update { $0.append(error) }
        }
        _ = try await producer.send(KafkaProducerRecord(topic: test.topic, value: Array("ok".utf8)))
        producer.raiseFatalErrorForTesting(try #require(KafkaError.Code(name: "OUT_OF_ORDER_SEQUENCE_NUMBER")))
        let surfaced = await eventually(within: .seconds(10)) { producer.fatalError != nil }
        #expect(surfaced)
        #expect(producer.fatalError?.isFatal == true)
        #expect(producer.fatalError?.name == "OUT_OF_ORDER_SEQUENCE_NUMBER")
        #expect(reported.value.contains { $0.isFatal })
        let error = await #expect(throws: KafkaError.self) {
            try await producer.send(KafkaProducerRecord(topic: test.topic, value: Array("refused".utf8)))
        }
        #expect(error?.isFatal == true)
        await producer.close()
    }

    @Test func fatalConsumerErrorFailsPoll() async throws {
        let test = try TestCluster(partitions: 1, brokers: 1)
        let consumer = try KafkaConsumer(configuration: test.consumerConfiguration())
        try await consumer.assign([TopicPartition(test.topic, 0): .beginning])
        consumer.raiseFatalErrorForTesting(try #require(KafkaError.Code(name: "FENCED_INSTANCE_ID")))
        var thrown: KafkaError?
        for _ in 0..<50 where thrown == nil {  // the error callback is served by poll
            do {
                _ = try await consumer.poll(timeout: .milliseconds(100))
            } catch {
                thrown = error
            }
        }
        #expect(thrown?.isFatal == true)
        #expect(consumer.fatalError?.name == "FENCED_INSTANCE_ID")
        await consumer.close(timeout: .seconds(2))
    }
}
