import Foundation
import Kafka
import KafkaTypes
import TestSupport
import Testing
import TopicWindow

/// The reader against librdkafka's mock cluster over TCP: exact windows, the end fixed at the start, no group.
@Suite struct TopicWindowReaderTests {
    let cluster: MockCluster
    let topic = "window-\(UUID().uuidString.prefix(8))"

    init() throws {
        cluster = try MockCluster(brokers: 1)
        try cluster.createTopic(topic, partitions: 2)
    }

    var configuration: KafkaConfiguration { KafkaConfiguration(["bootstrap.servers": cluster.bootstrapServers]) }

    /// Writes `count` records `p<partition>-<i>` to `partition`, the i-th stamped `timestamp(i)`.
    func produce(_ count: Int, partition: Int32, timestamp: (Int) -> Int64? = { _ in nil }) async throws {
        let producer = try KafkaProducer(configuration: configuration)
        for index in 0..<count {
            _ = try await producer.send(
                KafkaProducerRecord(
                    topic: topic, partition: partition, key: nil, value: Array("p\(partition)-\(index)".utf8),
                    timestampMilliseconds: timestamp(index)))
        }
        await producer.close()
    }

    func read(from: TopicPosition, to: TopicPosition, partitions: [Int32]? = nil) async throws -> [String] {
        let reader = try TopicWindowReader(configuration: configuration, topic: topic)
        let windows = try await reader.plan(from: from, to: to, partitions: partitions)
        var values: [String] = []
        _ = try await reader.read(windows) { records in
            values += records.map { String(decoding: $0.value, as: UTF8.self) }
        }
        await reader.close()
        return values
    }

    @Test func readsExactlyTheOffsetsOfTheWindowInOrder() async throws {
        try await produce(20, partition: 0)
        try await produce(5, partition: 1)
        #expect(try await read(from: .offset(5), to: .offsets([0: 8]), partitions: [0]) == ["p0-5", "p0-6", "p0-7"])
        let all = try await read(from: .beginning, to: .end)
        #expect(all.count == 25)
        #expect(all.filter { $0.hasPrefix("p1-") } == (0..<5).map { "p1-\($0)" })
    }

    @Test func theEndIsTheHighWatermarkWhenTheWindowIsPlanned() async throws {
        try await produce(3, partition: 0)
        let reader = try TopicWindowReader(configuration: configuration, topic: topic)
        let windows = try await reader.plan(from: .beginning, to: .end, partitions: [0])
        try await produce(3, partition: 0)
        var count = 0
        let stopped = try await reader.read(windows) { count += $0.count }
        await reader.close()
        #expect(count == 3)
        #expect(stopped == [0: 3])
    }

    @Test func aTimeWindowKeepsOnlyRecordsStampedInsideIt() async throws {
        try await produce(10, partition: 1) { 1_000_000 + Int64($0) * 1000 }
        let values = try await read(
            from: .time(epochMillis: 1_003_000), to: .time(epochMillis: 1_006_000), partitions: [1])
        #expect(values == ["p1-3", "p1-4", "p1-5"])
    }

    @Test func anEmptyWindowEndsAtOnce() async throws {
        #expect(try await read(from: .beginning, to: .end).isEmpty)
    }

    /// `--partitions 0,0` trapped `receipts stats` and `replay` ("Duplicate values for key").
    @Test func aPartitionListedTwiceIsReadOnce() async throws {
        try await produce(2, partition: 0)
        let reader = try TopicWindowReader(configuration: configuration, topic: topic)
        let windows = try await reader.plan(from: .beginning, to: .end, partitions: [0, 0])
        await reader.close()
        #expect(windows.map(\.partition) == [0])
        #expect(try await read(from: .beginning, to: .end, partitions: [0, 0]) == ["p0-0", "p0-1"])
    }

    @Test func aPartitionTheTopicDoesNotHaveIsRefusedByNumber() async throws {
        let reader = try TopicWindowReader(configuration: configuration, topic: topic)
        await #expect {
            _ = try await reader.plan(from: .beginning, to: .end, partitions: [0, 7])
        } throws: { error in
            "\(error)" == "\(topic) has no partition 7"
        }
        await reader.close()
    }
}

/// Following a topic like a table: everything up to the end at the start, then what comes later.
@Suite struct TopicFollowTests {
    @Test func followsPastTheEndAndSaysWhenItCaughtUp() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("table", partitions: 2)
        let configuration = KafkaConfiguration(["bootstrap.servers": cluster.bootstrapServers])
        let producer = try KafkaProducer(configuration: configuration)
        for index in 0..<4 {
            _ = try await producer.send(
                KafkaProducerRecord(topic: "table", partition: Int32(index % 2), key: nil, value: [UInt8(index)]))
        }
        let reader = try TopicWindowReader(configuration: configuration, topic: "table")
        let windows = try await reader.plan(from: .beginning, to: .end)
        let seen = Shared(0)
        let caughtUpAt = Shared(-1)
        let following = Task {
            try await reader.follow(windows, caughtUp: { caughtUpAt.update { $0 = seen.value } }) { records in
                seen.update { $0 += records.count }
            }
        }
        #expect(await eventually { caughtUpAt.value == 4 })
        _ = try await producer.send(KafkaProducerRecord(topic: "table", partition: 1, key: nil, value: [9]))
        #expect(await eventually { seen.value == 5 })
        following.cancel()
        _ = try? await following.value
        await reader.close()
        await producer.close()
    }
}
