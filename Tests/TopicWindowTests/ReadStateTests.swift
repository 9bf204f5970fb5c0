import Kafka
import KafkaTypes
import Testing

@testable import TopicWindow

/// Where a window read stands, without a broker: a transactional producer's partition ends in a marker, an offset
/// that is never handed out as a record, and the mock cluster writes no markers.
@Suite struct ReadStateTests {
    static func record(_ partition: Int32, _ offset: Int64) -> KafkaRecord {
        KafkaRecord(topic: "t", partition: partition, offset: offset, key: nil, value: [], headers: [])
    }

    /// The window ends at 10, the last record is at 8 (offset 9 is the commit marker): the partition finished only
    /// when a record reached 10, so `replay` and `receipts` polled for ever.
    @Test func aPartitionWhoseLastOffsetHoldsNoRecordEndsWhenTheConsumerReachesTheWindowsEnd() {
        var state = ReadState(windows: [PartitionWindow(partition: 0, start: 0, end: 10)])
        #expect(state.take((0..<9).map { Self.record(0, $0) }, topic: "t").count == 9)
        #expect(state.open == [0])
        state.finish(reachedEnds: [0: 10])
        #expect(state.open.isEmpty)
        #expect(state.next[0] == 10)
    }

    @Test func anEndReachedBeforeTheWindowsEndOrOfAnotherPartitionFinishesNothing() {
        var state = ReadState(windows: [PartitionWindow(partition: 0, start: 0, end: 10)])
        state.finish(reachedEnds: [0: 9, 1: 100])
        #expect(state.open == [0])
        #expect(state.next[0] == 0)
    }
}
