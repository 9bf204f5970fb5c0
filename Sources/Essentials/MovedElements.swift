extension Array {
    /// The array's elements in order, each moved out as the iteration reaches it. `for element in array` copies every
    /// element (a retain for each reference it holds) and the array releases them all at its end; a loop over
    /// `array.moved()` hands each over instead. Moving only pays when the array's storage is not shared: shared
    /// storage is copied first, so a caller hands over its only copy (`consume`: a variable still in scope keeps
    /// the storage shared).
    @inlinable public consuming func moved() -> MovedElements<Element> { MovedElements(consume self) }
}

/// The elements of an array in order, each moved out as it is reached (`Array.moved()`).
public struct MovedElements<Element>: Sequence, IteratorProtocol {
    /// The elements not reached yet, last first: `popLast` moves an element out without touching the others.
    @usableFromInline var remaining: [Element]

    @inlinable init(_ elements: consuming [Element]) {
        remaining = consume elements
        // Reversed in the buffer: an element swap there moves the two, where `MutableCollection.swapAt` copies them.
        remaining.withUnsafeMutableBufferPointer { $0.reverse() }
    }

    @inlinable public mutating func next() -> Element? { remaining.popLast() }
}
