/// A double-ended FIFO with amortised O(1) push and pop at both ends: taking the first element moves an index, not
/// the rest (an array's `removeFirst` moves every element after it).
public struct RingBuffer<Element> {
    private var storage: [Element?] = []
    private var head = 0
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// The first element, left in place.
    public var first: Element? { count > 0 ? storage[head] : nil }

    public mutating func append(_ element: Element) {
        growIfFull()
        storage[slot(count)] = element
        count += 1
    }

    public mutating func prepend(_ element: Element) {
        growIfFull()
        head = slot(storage.count - 1)
        storage[head] = element
        count += 1
    }

    public mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head].take()
        head = slot(1)
        count -= 1
        return element
    }

    /// Removes and returns every element, first to last.
    public mutating func removeAll() -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        while let element = popFirst() { elements.append(element) }
        return elements
    }

    /// Removes the elements `shouldBeRemoved` picks, in place, the others keeping their order; returns how many it
    /// removed.
    public mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) -> Int {
        var kept = 0
        for offset in 0..<count {
            guard let element = storage[slot(offset)].take() else { continue }
            if shouldBeRemoved(element) { continue }
            storage[slot(kept)] = element
            kept += 1
        }
        defer { count = kept }
        return count - kept
    }

    /// The storage index of the element `offset` places after the first.
    private func slot(_ offset: Int) -> Int { (head + offset) % storage.count }

    /// Doubles the storage when it is full (four slots at first: most queues hold a record or two), moving the
    /// elements to its front in order.
    private mutating func growIfFull() {
        guard count == storage.count else { return }
        var grown = [Element?](repeating: nil, count: max(4, 2 * count))
        for offset in 0..<count { grown[offset] = storage[slot(offset)].take() }
        storage = grown
        head = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
