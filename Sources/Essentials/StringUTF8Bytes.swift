extension String {
    /// Calls `body` with the string's UTF-8 bytes: where a native string keeps them, with no copy of the string and no
    /// retain of its storage; from a copy otherwise (a bridged or lazily made string). `withUTF8` is mutating, so a
    /// caller holding the string as a value copies it to call that.
    @inlinable
    public func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
