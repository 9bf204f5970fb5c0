import Essentials
import Testing

@Suite struct RingBufferTests {
    @Test func isAFIFOThatAcceptsUrgentItemsAtTheFront() {
        var buffer = RingBuffer<Int>()
        for value in 0..<40 { buffer.append(value) }
        #expect(buffer.popFirst() == 0)
        buffer.prepend(-1)
        #expect(buffer.count == 40)
        #expect(buffer.removeAll() == [-1] + Array(1..<40))
        #expect(buffer.popFirst() == nil)
    }

    /// Taken and added in turns, as a room lane is, across the storage's wrap-around and growth.
    @Test func keepsItsOrderWhileTakenAndAddedInTurns() {
        var buffer = RingBuffer<Int>()
        var expected: [Int] = []
        var next = 0
        for round in 0..<100 {
            for _ in 0..<(round % 7 + 1) {
                buffer.append(next)
                expected.append(next)
                next += 1
            }
            for _ in 0..<(round % 5) where !expected.isEmpty {
                #expect(buffer.first == expected.first)
                #expect(buffer.popFirst() == expected.removeFirst())
            }
            #expect(buffer.count == expected.count)
        }
        #expect(buffer.removeAll() == expected)
        #expect(buffer.isEmpty)
    }

    /// Removing in place across the storage's wrap-around keeps the others' order, and the buffer takes more after.
    @Test func removesWhatAPredicatePicksInPlaceKeepingTheOrder() {
        var buffer = RingBuffer<Int>()
        for value in 0..<16 { buffer.append(value) }
        for _ in 0..<10 { _ = buffer.popFirst() }
        for value in 16..<26 { buffer.append(value) }
        #expect(buffer.removeAll { $0 % 3 == 0 } == 5)
        #expect(buffer.removeAll { $0 > 100 } == 0)
        buffer.append(26)
        #expect(buffer.count == 12)
        #expect(buffer.removeAll() == [10, 11, 13, 14, 16, 17, 19, 20, 22, 23, 25, 26])
    }
}
