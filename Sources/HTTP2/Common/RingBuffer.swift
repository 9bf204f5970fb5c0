/// A double-ended FIFO with amortised O(1) push and pop at both ends.
struct RingBuffer<Element> {
    private var storage: [Element?] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The first element, left in place.
    var first: Element? { count > 0 ? storage[head] : nil }

    mutating func append(_ element: Element) {
        growIfFull()
        storage[(head + count) % storage.count] = element
        count += 1
    }

    mutating func prepend(_ element: Element) {
        growIfFull()
        head = (head + storage.count - 1) % storage.count
        storage[head] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return element
    }

    /// Removes and returns every element, first to last.
    mutating func removeAll() -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        while let element = popFirst() { elements.append(element) }
        return elements
    }

    private mutating func growIfFull() {
        guard count == storage.count else { return }
        let elements = removeAll()
        storage = elements.map(Optional.some) + Array(repeating: nil, count: max(16, elements.count))
        head = 0
        count = elements.count
    }
}
