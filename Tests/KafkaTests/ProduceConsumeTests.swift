import Kafka
import KafkaTypes
import TestSupport
import Testing

@Suite(.serialized, .timeLimit(.minutes(2)))
struct ProduceConsumeTests {
    @Test func tenThousandRecordsArriveOnceInPartitionOrderWithKeysHeadersAndTimestamps() async throws {
        let test = try TestCluster(partitions: 6)
        let producer = try test.producer()
        let count = 10_000
        let firstTimestamp: Int64 = 1_780_000_000_000
        let delivered = Shared(0)
        for index in 0..<count {
            let record = KafkaProducerRecord(
                topic: test.topic, key: Array("room-\(index % 50)".utf8), value: Array("value-\(index)".utf8),
                headers: [KafkaHeader(name: "seq", text: "\(index)"), KafkaHeader(name: "empty", value: nil)],
                timestampMilliseconds: firstTimestamp + Int64(index))
            try producer.send(record) { result in
                if case .success = result { delivered.update { $0 += 1 } }
            }
        }
        try await producer.flush(timeout: .seconds(30))
        #expect(delivered.value == count)

        let consumer = try KafkaConsumer(configuration: test.consumerConfiguration())
        try await consumer.subscribe(topics: [test.topic])
        let records = try await consume(consumer, count: count, within: .seconds(60))
        await consumer.close()

        #expect(records.count == count)
        var seen = Set<Int>()
        var lastOffset: [TopicPartition: Int64] = [:]
        var lastSequenceOfKey: [[UInt8]: Int] = [:]
        for record in records {
            let sequence = try #require(
                record.headers.first(named: "seq").flatMap { Int(String(decoding: $0, as: UTF8.self)) })
            #expect(seen.insert(sequence).inserted, "record \(sequence) delivered twice")
            #expect(record.text == "value-\(sequence)")
            #expect(record.key == Array("room-\(sequence % 50)".utf8))
            #expect(record.timestampMilliseconds == firstTimestamp + Int64(sequence))
            #expect(record.headers.contains(KafkaHeader(name: "empty", value: nil)))
            #expect(record.offset > lastOffset[record.topicPartition, default: -1])
            lastOffset[record.topicPartition] = record.offset
            let key = record.key ?? []
            #expect(sequence > lastSequenceOfKey[key, default: -1], "key order broken")
            lastSequenceOfKey[key] = sequence
        }
        #expect(seen.count == count)
        #expect(Set(records.map(\.partition)).count == 6)
    }

    /// One wait for a batch: every record's report in the record's place, a refused record's among the others'.
    @Test func aBatchGetsEveryReportInRecordOrder() async throws {
        let test = try TestCluster(partitions: 3)
        let producer = try test.producer()
        let records = (0..<200).map { index in
            KafkaProducerRecord(
                topic: test.topic, partition: Int32(index % 3), key: nil,
                // librdkafka refuses a record over `message.max.bytes` (1,000,000) before queueing it.
                value: index == 57 ? Array(repeating: 7, count: 1_100_000) : Array("value-\(index)".utf8))
        }
        let reports = await producer.send(records)
        #expect(reports.count == records.count)
        var lastOffset: [Int32: Int64] = [:]
        for (index, report) in reports.enumerated() {
            switch report {
            case .success(let stored):
                #expect(index != 57)
                #expect(stored.partition == Int32(index % 3))
                #expect(stored.offset > lastOffset[stored.partition, default: -1], "record \(index) out of order")
                lastOffset[stored.partition] = stored.offset
            case .failure(let error):
                #expect(index == 57)
                #expect(error.code == .messageSizeTooLarge)
            }
        }
        #expect(await producer.send([]).isEmpty)
    }

    /// A holding producer with one slow broker: a batch for a partition of another broker, sent while one for the
    /// slow broker is in flight, waits for the gate's limit (100 ms) and a poll, not for the slow answer (3 s).
    @Test func aSlowBrokerHoldsTheOtherBrokersRecordsOnlyForTheGatesLimit() async throws {
        let test = try TestCluster(partitions: 2, brokers: 2)
        try test.cluster.setLeader(of: TopicPartition(test.topic, 0), broker: 1)
        try test.cluster.setLeader(of: TopicPartition(test.topic, 1), broker: 2)
        let producer = try test.producer(holdsWhileInFlight: true)
        func batch(to partition: Int32) -> [KafkaProducerRecord] {
            [KafkaProducerRecord(topic: test.topic, partition: partition, key: nil, value: Array("p\(partition)".utf8))]
        }
        // Both brokers known and connected first.
        for report in await producer.send(batch(to: 0) + batch(to: 1)) { _ = try report.get() }
        try test.cluster.setRoundTripTime(broker: 1, milliseconds: 3_000)

        let start = ContinuousClock.now
        async let slow = producer.send(batch(to: 0))
        try await Task.sleep(for: .milliseconds(50))
        for report in await producer.send(batch(to: 1)) { _ = try report.get() }
        let fastTook = ContinuousClock.now - start
        for report in await slow { _ = try report.get() }
        let slowTook = ContinuousClock.now - start
        #expect(fastTook < .milliseconds(1_500), "the other broker's batch waited \(fastTook)")
        #expect(slowTook >= .milliseconds(2_500), "the slow broker answered in \(slowTook)")
        #expect(producer.earlyReleases >= 1, "the other broker's batch went before the slow one was reported")
    }

    /// A producer that holds batches while others are in flight (`holdsWhileInFlight`, the pipeline's): 50 batches
    /// sent at once from as many tasks all get their reports, each in its records' order, a refused record's among
    /// them, and every stored record is read back once.
    @Test func batchesHeldWhileOthersAreInFlightAllGetTheirReports() async throws {
        let test = try TestCluster(partitions: 3)
        let producer = try test.producer(holdsWhileInFlight: true)
        let batches = 50
        let perBatch = 40
        let results = try await withThrowingTaskGroup(
            of: (Int, [Result<KafkaDeliveryReport, KafkaError>]).self
        ) { group in
            for batch in 0..<batches {
                group.addTask {
                    let records = (0..<perBatch).map { index in
                        KafkaProducerRecord(
                            topic: test.topic, partition: Int32(index % 3), key: nil,
                            value: batch == 7 && index == 5
                                ? Array(repeating: 7, count: 1_100_000) : Array("value-\(batch)-\(index)".utf8))
                    }
                    return (batch, await producer.send(records))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == batches)
        var stored = 0
        for (batch, reports) in results {
            #expect(reports.count == perBatch)
            var lastOffset: [Int32: Int64] = [:]
            for (index, report) in reports.enumerated() {
                switch report {
                case .success(let report):
                    stored += 1
                    #expect(report.partition == Int32(index % 3))
                    #expect(report.offset > lastOffset[report.partition, default: -1], "batch \(batch) out of order")
                    lastOffset[report.partition] = report.offset
                case .failure(let error):
                    #expect(batch == 7 && index == 5, "batch \(batch) record \(index): \(error)")
                    #expect(error.code == .messageSizeTooLarge)
                }
            }
        }
        #expect(stored == batches * perBatch - 1)

        let consumer = try KafkaConsumer(configuration: test.consumerConfiguration())
        try await consumer.subscribe(topics: [test.topic])
        let records = try await consume(consumer, count: stored, within: .seconds(60))
        await consumer.close()
        #expect(records.count == stored)
        #expect(Set(records.map(\.text)).count == stored)
    }

    @Test func newConsumerResumesFromCommittedOffset() async throws {
        let test = try TestCluster(partitions: 1)
        let producer = try test.producer()
        try await test.produce(100, partition: 0, with: producer)
        let configuration = test.consumerConfiguration()

        let first = try KafkaConsumer(configuration: configuration)
        try await first.subscribe(topics: [test.topic])
        let records = try await consume(first, count: 100)
        try #require(records.count == 100)
        try first.store(records[59])
        #expect(await first.close())

        let second = try KafkaConsumer(configuration: configuration)
        try await second.subscribe(topics: [test.topic])
        let again = try await consume(second, count: 40)
        let extra = try await drain(second, for: .milliseconds(500))
        await second.close()
        #expect(again.map(\.offset) == Array(60..<100))
        #expect(again.map(\.text) == (60..<100).map { "value-\($0)" })
        #expect(extra.isEmpty)
    }

    @Test func committedOffsetsAndWatermarksReflectWhatWasStored() async throws {
        let test = try TestCluster(partitions: 2)
        let partition = TopicPartition(test.topic, 1)
        let (consumer, records) = try await test.produceAndConsume(10, at: partition)
        try consumer.store(records[4])
        try await consumer.commit()
        #expect(try await consumer.committedOffsets(of: [partition]) == [partition: 5])
        #expect(try await consumer.watermarks(of: partition) == Watermarks(low: 0, high: 10))
        #expect(try await consumer.partitions(of: test.topic) == [0, 1])
        await consumer.close()
    }

    /// What a shutdown waits for: the periodic commit (every 200 ms here) answered, served by polls.
    @Test func theConsumerTellsWhenThePeriodicCommitHasCoveredItsStoredOffsets() async throws {
        let test = try TestCluster(partitions: 2)
        let partition = TopicPartition(test.topic, 1)
        let (consumer, records) = try await test.produceAndConsume(10, at: partition)
        #expect(consumer.commitsPeriodically && consumer.storedOffsetsCommitted)
        try consumer.store(records[6])
        #expect(!consumer.storedOffsetsCommitted)  // no poll since: no answer served
        let deadline = ContinuousClock.now + .seconds(10)
        while !consumer.storedOffsetsCommitted, ContinuousClock.now < deadline {
            #expect(try await consumer.poll(maxRecords: 10, timeout: .milliseconds(100)).isEmpty)
        }
        #expect(consumer.storedOffsetsCommitted)
        #expect(try await consumer.committedOffsets(of: [partition]) == [partition: 7])
        await consumer.close()
    }

    @Test func aConsumerWithoutAutoCommitSaysItDoesNotCommitPeriodically() throws {
        let test = try TestCluster(partitions: 1)
        let configuration = test.consumerConfiguration().merging(KafkaConfiguration(["enable.auto.commit": "false"]))
        #expect(try !KafkaConsumer(configuration: configuration).commitsPeriodically)
    }

    @Test func pausedPartitionDeliversNothingAndResumesWhereItStopped() async throws {
        let test = try TestCluster(partitions: 2)
        let producer = try test.producer()
        let paused = TopicPartition(test.topic, 0)
        let running = TopicPartition(test.topic, 1)
        try await test.produce(20, partition: 0, with: producer)

        let consumer = try KafkaConsumer(configuration: test.consumerConfiguration())
        try await consumer.assign([paused: .beginning, running: .beginning])
        let before = try await consume(consumer, count: 20)
        try #require(before.count == 20)
        try consumer.pause([paused])
        try consumer.resume([running])  // not paused: must be left alone, not rewound
        #expect(consumer.pausedPartitions == [paused])

        try await test.produce(30, partition: 0, with: producer)
        try await test.produce(10, partition: 1, with: producer)
        let whilePaused = try await consume(consumer, count: 10)
        let more = try await drain(consumer, for: .seconds(1))
        #expect((whilePaused + more).allSatisfy { $0.partition == 1 })
        #expect((whilePaused + more).map(\.offset) == Array(0..<10))

        try consumer.resume([paused])
        let after = try await consume(consumer, count: 30)
        await consumer.close()
        #expect(after.allSatisfy { $0.partition == 0 })
        #expect(after.map(\.offset) == Array(20..<50))
    }

    @Test func aSeekReadsAgainFromItsOffsetAndReportsNoError() async throws {
        let test = try TestCluster(partitions: 1)
        let producer = try test.producer()
        let partition = TopicPartition(test.topic, 0)
        try await test.produce(20, partition: 0, with: producer)
        let errors = Shared([String]())
        let consumer = try KafkaConsumer(
            configuration: test.consumerConfiguration(),
            errorHandler: { error in errors.update { $0.append("\(error)") } })
        try await consumer.assign([partition: .beginning])
        let first = try await consume(consumer, count: 20)
        try #require(first.count == 20)

        try consumer.seek(partition, to: 5)  // librdkafka 2.16 answers a seek that does not wait `_IN_PROGRESS`
        let again = try await consume(consumer, count: 15)
        await consumer.close()
        #expect(again.map(\.offset) == Array(5..<20))
        #expect(errors.value.isEmpty)
    }

    @Test func assignmentAtTimestampReadsExactlyTheRecordsAtOrAfterIt() async throws {
        let test = try TestCluster(partitions: 3)
        let producer = try test.producer()
        let start: Int64 = 1_780_000_000_000
        for index in 0..<90 {
            _ = try await producer.send(
                KafkaProducerRecord(
                    topic: test.topic, partition: Int32(index % 3), value: Array("value-\(index)".utf8),
                    timestampMilliseconds: start + Int64(index) * 1000))
        }
        let consumer = try KafkaConsumer(configuration: test.consumerConfiguration())
        let partitions = (0..<3).map { TopicPartition(test.topic, Int32($0)) }
        let from = start + 60_000
        try await consumer.assign(partitions, atTimestampMilliseconds: from)
        let records = try await consume(consumer, count: 30)
        let extra = try await drain(consumer, for: .milliseconds(500))
        await consumer.close()
        #expect(extra.isEmpty)
        #expect(Set(records.map(\.text)) == Set((60..<90).map { "value-\($0)" }))
        #expect(records.allSatisfy { ($0.timestampMilliseconds ?? 0) >= from })
    }

    @Test func lagIsReportedPerPartitionFromStatistics() async throws {
        let test = try TestCluster(partitions: 1)
        let partition = TopicPartition(test.topic, 0)
        let (consumer, records) = try await test.produceAndConsume(50, at: partition)
        try #require(records.count == 50)
        try consumer.store(records[9])
        try await consumer.commit()
        var lag: Int64?
        for _ in 0..<50 where lag != 40 {  // statistics come every 500 ms, served while polling
            _ = try await drain(consumer, for: .milliseconds(200))
            lag = consumer.lag[partition]
        }
        await consumer.close()
        #expect(lag == 40)
    }
}
