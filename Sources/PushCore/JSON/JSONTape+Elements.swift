extension JSONTape {
    /// An array's elements, read in place in document order: going through them makes no array of them. Each
    /// element's `next` is the entry of the one after it, and the last one's is the array's own `next`.
    struct Elements: Collection {
        /// A position: the element's entry in the tape, not its offset in the array (`Array(elements)[n]` for that).
        struct Index: Comparable {
            fileprivate let entry: Int

            static func < (lhs: Self, rhs: Self) -> Bool { lhs.entry < rhs.entry }
        }

        /// The array.
        let array: Value

        var startIndex: Index { Index(entry: array.index + 1) }
        var endIndex: Index { Index(entry: array.entries[array.index].next) }
        var count: Int { array.entries[array.index].count }

        func index(after index: Index) -> Index { Index(entry: array.entries[index.entry].next) }

        subscript(position: Index) -> Value { array.at(position.entry) }
    }
}
