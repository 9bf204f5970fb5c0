/// Eight bytes of a JSON string tested at once (SWAR): reading a string skips words that hold no quote, backslash or
/// control character, which is most of a token or a message text, and writing one skips words with nothing to escape
/// (the same three kinds of byte). Inlinable: the JSON reader in another module runs it on every word of a string.
public enum StringWord {
    @inlinable static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @inlinable static var highBits: UInt64 { 0x8080_8080_8080_8080 }

    /// Whether any byte of `word` is below `limit` (at most 128), read as an unsigned byte.
    @inlinable
    static func hasByte(below limit: UInt64, in word: UInt64) -> Bool {
        (word &- ones &* limit) & ~word & highBits != 0
    }

    /// Whether any byte of `word` is `byte`.
    @inlinable
    static func has(_ byte: UInt8, in word: UInt64) -> Bool {
        hasByte(below: 1, in: word ^ (ones &* UInt64(byte)))
    }

    /// Whether a byte of `word` is a quote, a backslash or a control character: the byte loop takes it from there. A
    /// false answer is exact; a true one means at least one byte is such a byte.
    @inlinable
    public static func endsFastPath(_ word: UInt64) -> Bool {
        has(UInt8(ascii: "\""), in: word) || has(UInt8(ascii: "\\"), in: word) || hasByte(below: 0x20, in: word)
    }

    /// Whether every byte of `word` is ASCII.
    @inlinable
    public static func isASCII(_ word: UInt64) -> Bool {
        word & highBits == 0
    }
}
