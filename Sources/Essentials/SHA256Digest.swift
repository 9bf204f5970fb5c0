extension SHA256 {
    /// A digest's 32 bytes, held inline: hashing into one allocates nothing, where `hash` returns an array. The ids
    /// and token hashes written for every push are made from it.
    public struct Digest: RandomAccessCollection, Equatable, Sendable {
        /// The bytes in digest order, eight to a word: each word is stored big-endian, so its memory holds them so.
        private let words: (UInt64, UInt64, UInt64, UInt64)

        /// The digest of SHA-256's eight final working words.
        init(state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)) {
            func joined(_ high: UInt32, _ low: UInt32) -> UInt64 { (UInt64(high) << 32 | UInt64(low)).bigEndian }
            words = (
                joined(state.0, state.1), joined(state.2, state.3), joined(state.4, state.5), joined(state.6, state.7)
            )
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { 32 }

        public subscript(position: Int) -> UInt8 {
            precondition(indices.contains(position), "a digest has 32 bytes")
            return withUnsafeBytes { $0[position] }
        }

        /// Calls `body` with the 32 bytes where they lie.
        public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            try Swift.withUnsafeBytes(of: words, body)
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.words == rhs.words }
    }
}
