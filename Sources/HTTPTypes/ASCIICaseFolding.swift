extension Sequence<UInt8> {
    /// True when these bytes and `other`'s spell the same text with ASCII letters compared regardless of case (header
    /// names, URL schemes); no other byte folds, and nothing is allocated.
    @inlinable
    public func elementsEqualIgnoringASCIICase(_ other: some Sequence<UInt8>) -> Bool {
        elementsEqual(other) { left, right in
            left == right
                || (left | 0x20 == right | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(left | 0x20))
        }
    }
}
