/// A double-ended FIFO with amortised O(1) push and pop at both ends: taking the first element moves an index, not
/// the rest (an array's `removeFirst` moves every element after it).
///
/// Inlinable: each module compiles it for its own element type. Called across modules as generic code, every call
/// looked up the element type's metadata (the HTTP/2 loop's waiting streams: 5 % of its thread's CPU).
public struct RingBuffer<Element> {
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0
    @usableFromInline var held = 0

    @inlinable public init() {}

    /// How many elements it holds.
    @inlinable public var count: Int { held }

    @inlinable public var isEmpty: Bool { held == 0 }

    /// The first element, left in place.
    @inlinable public var first: Element? { count > 0 ? storage[head] : nil }

    @inlinable public mutating func append(_ element: Element) {
        growIfFull()
        storage[slot(count)] = element
        held += 1
    }

    @inlinable public mutating func prepend(_ element: Element) {
        growIfFull()
        head = slot(storage.count - 1)
        storage[head] = element
        held += 1
    }

    @inlinable public mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head].take()
        head = slot(1)
        held -= 1
        return element
    }

    /// Removes and returns every element, first to last.
    @inlinable public mutating func removeAll() -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        while let element = popFirst() { elements.append(element) }
        return elements
    }

    /// Removes the elements `shouldBeRemoved` picks, in place, the others keeping their order; returns how many it
    /// removed.
    @inlinable public mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) -> Int {
        var kept = 0
        for offset in 0..<count {
            guard let element = storage[slot(offset)].take() else { continue }
            if shouldBeRemoved(element) { continue }
            storage[slot(kept)] = element
            kept += 1
        }
        defer { held = kept }
        return count - kept
    }

    /// The storage index of the element `offset` places after the first.
    @inlinable func slot(_ offset: Int) -> Int { (head + offset) % storage.count }

    /// Doubles the storage when it is full (four slots at first: most queues hold a record or two), moving the
    /// elements to its front in order.
    @inlinable mutating func growIfFull() {
        guard count == storage.count else { return }
        var grown = [Element?](repeating: nil, count: max(4, 2 * count))
        for offset in 0..<count { grown[offset] = storage[slot(offset)].take() }
        storage = grown
        head = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
