import Kafka
import KafkaTypes
import Testing
import TopicWindow

@Suite struct PartitionWindowTests {
    let watermarks = Watermarks(low: 100, high: 500)

    func window(_ from: TopicPosition, _ to: TopicPosition, fromTime: Int64? = nil, toTime: Int64? = nil)
        -> PartitionWindow
    {
        .between(from, to, partition: 3, watermarks: watermarks, fromTimeOffset: fromTime, toTimeOffset: toTime)
    }

    @Test func theDefaultsReadFromTheOldestRecordToTheHighWatermark() {
        #expect(window(.beginning, .end) == PartitionWindow(partition: 3, start: 100, end: 500))
    }

    @Test func offsetsAreClampedToTheWatermarksAndTheEndIsExclusive() {
        #expect(window(.offset(50), .offset(9000)) == PartitionWindow(partition: 3, start: 100, end: 500))
        #expect(window(.offset(200), .offset(210)).count == 10)
        #expect(window(.offset(300), .offset(200)).count == 0)
    }

    @Test func perPartitionOffsetsLeaveOtherPartitionsAtTheirBounds() {
        #expect(window(.offsets([3: 250]), .offsets([3: 260])) == PartitionWindow(partition: 3, start: 250, end: 260))
        #expect(window(.offsets([0: 250]), .offsets([0: 260])) == PartitionWindow(partition: 3, start: 100, end: 500))
    }

    @Test func timesUseTheOffsetsTheBrokerNamedAndFilterByTimestamp() {
        let named = window(.time(epochMillis: 1_000), .time(epochMillis: 2_000), fromTime: 150, toTime: 400)
        #expect(
            named == PartitionWindow(partition: 3, start: 150, end: 400, notBeforeMillis: 1_000, beforeMillis: 2_000))
        let unnamed = window(.time(epochMillis: 1_000), .time(epochMillis: 2_000))
        #expect(
            unnamed == PartitionWindow(partition: 3, start: 100, end: 500, notBeforeMillis: 1_000, beforeMillis: 2_000))
    }

    @Test func anAbsurdWindowCountsSaturatedInsteadOfTrapping() {
        #expect(PartitionWindow(partition: 0, start: .min, end: .max).count == .max)
        #expect(PartitionWindow(partition: 0, start: .max, end: .min).count == 0)
    }

    @Test func containsChecksOffsetsAndTimestamps() {
        let window = PartitionWindow(partition: 0, start: 10, end: 20, notBeforeMillis: 1_000, beforeMillis: 2_000)
        func record(_ offset: Int64, _ time: Int64?) -> KafkaRecord {
            KafkaRecord(topic: "t", partition: 0, offset: offset, key: nil, value: [], timestampMilliseconds: time)
        }
        #expect(window.contains(record(10, 1_000)))
        #expect(window.contains(record(19, 1_999)))
        #expect(window.contains(record(15, nil)))
        #expect(!window.contains(record(9, 1_500)))
        #expect(!window.contains(record(20, 1_500)))
        #expect(!window.contains(record(15, 999)))
        #expect(!window.contains(record(15, 2_000)))
    }
}
