import Kafka
import KafkaTypes
import TestSupport
import Testing

@Suite(.serialized, .timeLimit(.minutes(2)))
struct FaultToleranceTests {
    @Test func injectedProduceErrorsAreRetriedWithoutDuplicates() async throws {
        let test = try TestCluster(partitions: 1, brokers: 1)
        let producer = try test.producer()
        test.cluster.pushRequestErrors(
            .produce,
            [.notLeaderForPartition, .requestTimedOut, try #require(KafkaError.Code(name: "NOT_ENOUGH_REPLICAS"))])
        let reports = try await test.produce(50, partition: 0, with: producer)
        #expect(reports.map(\.offset).sorted() == Array(0..<50))

        let consumer = try KafkaConsumer(configuration: test.consumerConfiguration())
        try await consumer.assign([TopicPartition(test.topic, 0): .beginning])
        let records = try await consume(consumer, count: 50)
        let extra = try await drain(consumer, for: .milliseconds(500))
        await consumer.close()
        #expect((records + extra).map(\.text) == (0..<50).map { "value-\($0)" })
    }

    @Test func permanentProduceFailureReachesTheAwaitingCaller() async throws {
        let test = try TestCluster(partitions: 1, brokers: 1)
        let producer = try test.producer()
        test.cluster.pushRequestErrors(.produce, [.topicAuthorizationFailed])
        let record = KafkaProducerRecord(topic: test.topic, partition: 0, value: Array("refused".utf8))
        let error = await #expect(throws: KafkaError.self) { try await producer.send(record) }
        #expect(error?.code == .topicAuthorizationFailed)
        #expect(error?.isRetriable == false)
        await producer.close()
    }

    @Test func consumerAndProducerRecoverFromABrokerDownForSeconds() async throws {
        let test = try TestCluster(partitions: 3, brokers: 3)
        let producer = try test.producer()
        let consumer = try KafkaConsumer(configuration: test.consumerConfiguration())
        try await consumer.subscribe(topics: [test.topic])
        try await test.produce(300, keys: 30, with: producer)
        var records = try await consume(consumer, count: 300)

        try test.cluster.setBrokerDown(1)
        let reports = Shared<[Result<KafkaDeliveryReport, KafkaError>]>([])
        for index in 300..<600 {
            let record = KafkaProducerRecord(
                topic: test.topic, key: Array("key-\(index % 30)".utf8), value: Array("value-\(index)".utf8))
            try producer.send(record) { result in reports.update { $0.append(result) } }
        }
        records += try await drain(consumer, for: .seconds(3))
        try test.cluster.setBrokerUp(1)
        try await producer.flush(timeout: .seconds(60))
        #expect(reports.value.count == 300)
        #expect(reports.value.allSatisfy { (try? $0.get()) != nil })

        // Every record arrives; a partition whose leader went away may hand some out twice (at least once), so the
        // wait is for every value, not for a count that duplicates could reach first.
        let wanted = Set((0..<600).map { "value-\($0)" })
        var seen = Set(records.map(\.text))
        let deadline = ContinuousClock.now + .seconds(60)
        while seen != wanted, ContinuousClock.now < deadline {
            for record in try await consumer.poll(maxRecords: 1000, timeout: .milliseconds(100)) {
                seen.insert(record.text)
            }
        }
        await consumer.close()
        #expect(seen == wanted)
    }
}
