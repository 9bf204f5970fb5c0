import Essentials
import Testing

@Suite struct MovedElementsTests {
    private final class Box {
        let value: Int

        init(_ value: Int) {
            self.value = value
        }
    }

    @Test func theElementsComeInOrderEachOnce() {
        #expect(Array([3, 1, 2].moved()) == [3, 1, 2])
        #expect(Array([Int]().moved()).isEmpty)
    }

    /// Moved, not copied: the loop holds the only reference to each element of storage nobody else shares.
    @Test func eachElementIsHandedOverNotCopied() {
        var unique: [Bool] = []
        for var box in [Box(1), Box(2)].moved() {
            unique.append(isKnownUniquelyReferenced(&box))
        }
        #expect(unique == [true, true])
    }

    /// Storage shared with another array is copied first: that one keeps its elements.
    @Test func sharedStorageIsLeftAsItWas() {
        let boxes = [Box(1), Box(2)]
        var values: [Int] = []
        for box in boxes.moved() { values.append(box.value) }
        #expect(values == [1, 2])
        #expect(boxes.map(\.value) == [1, 2])
    }
}
