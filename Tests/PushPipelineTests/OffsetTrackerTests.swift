import TestSupport
import Testing

@testable import PushPipeline

@Suite struct OffsetTrackerTests {
    @Test func storesOnlyTheContiguousWatermarkWhenRecordsFinishOutOfOrder() {
        var tracker = OffsetTracker()
        for offset in Int64(10)...14 { tracker.begin(offset) }
        #expect(tracker.complete(12) == nil)
        #expect(tracker.complete(11) == nil)
        #expect(tracker.complete(10) == 13)
        #expect(tracker.complete(14) == nil)
        #expect(tracker.complete(13) == 15)
        #expect(tracker.isIdle)
        #expect(tracker.pendingCount == 0)
    }

    /// An offset is the broker's word: the largest one must not trap the worker on `+ 1`.
    @Test func theLargestOffsetSaturatesInsteadOfTrapping() {
        var tracker = OffsetTracker()
        tracker.begin(Int64.max - 1)
        tracker.begin(Int64.max)
        #expect(tracker.complete(Int64.max - 1) == Int64.max)
        #expect(tracker.complete(Int64.max) == nil)
        #expect(tracker.isIdle)
    }

    @Test func skipsGapsInOffsetsLikeCompactedOrTransactionMarkers() {
        var tracker = OffsetTracker()
        tracker.begin(5)
        tracker.begin(9)
        #expect(tracker.complete(5) == 9)
        #expect(tracker.complete(9) == 10)
    }

    @Test func ignoresUnknownAndRepeatedCompletions() {
        var tracker = OffsetTracker()
        tracker.begin(1)
        tracker.begin(2)
        #expect(tracker.complete(7) == nil)
        #expect(tracker.complete(2) == nil)
        #expect(tracker.complete(2) == nil)
        #expect(tracker.pendingCount == 1)
        #expect(tracker.complete(1) == 3)
    }

    @Test func ignoresOffsetsBelowTheHighestSeen() {
        var tracker = OffsetTracker()
        tracker.begin(4)
        tracker.begin(3)
        #expect(tracker.pendingCount == 1)
        #expect(tracker.watermark == 4)
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func neverStoresPastAnUnfinishedRecordInAnyCompletionOrder(seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed))
        var tracker = OffsetTracker()
        let offsets = Array(Int64(0)..<300)
        for offset in offsets { tracker.begin(offset) }
        var done = Set<Int64>()
        for offset in offsets.shuffled(using: &generator) {
            done.insert(offset)
            if let mark = tracker.complete(offset) {
                #expect((0..<mark).allSatisfy { done.contains($0) })
                #expect(!done.contains(mark) || mark == 300)
            }
        }
        #expect(tracker.watermark == 300)
    }
}
