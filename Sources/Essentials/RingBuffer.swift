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
        storage[(head + count) % storage.count] = element
        count += 1
    }

    public mutating func prepend(_ element: Element) {
        growIfFull()
        head = (head + storage.count - 1) % storage.count
        storage[head] = element
        count += 1
    }

    public mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head].take()
        head = (head + 1) % storage.count
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
            let from = (head + offset) % storage.count
            guard let element = storage[from].take() else { continue }
            if shouldBeRemoved(element) { continue }
            storage[(head + kept) % storage.count] = element
            kept += 1
        }
        defer { count = kept }
        return count - kept
    }

    /// Doubles the storage when it is full (four slots at first: most queues hold a record or two), moving the
    /// elements to its front in order.
    private mutating func growIfFull() {
        guard count == storage.count else { return }
        var grown = [Element?](repeating: nil, count: max(4, 2 * count))
        for offset in 0..<count { grown[offset] = storage[(head + offset) % storage.count].take() }
        storage = grown
        head = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
