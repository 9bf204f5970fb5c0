/// Eight bytes of a JSON string tested at once (SWAR): reading a string skips words that hold no quote, backslash or
/// control character, which is most of a token or a message text, and writing one skips words with nothing to escape
/// (the same three kinds of byte).
public enum StringWord {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` is below `limit` (at most 128), read as an unsigned byte.
    private static func hasByte(below limit: UInt64, in word: UInt64) -> Bool {
        (word &- ones &* limit) & ~word & highBits != 0
    }

    /// Whether any byte of `word` is `byte`.
    private static func has(_ byte: UInt8, in word: UInt64) -> Bool {
        hasByte(below: 1, in: word ^ (ones &* UInt64(byte)))
    }

    /// Whether a byte of `word` is a quote, a backslash or a control character: the byte loop takes it from there. A
    /// false answer is exact; a true one means at least one byte is such a byte.
    public static func endsFastPath(_ word: UInt64) -> Bool {
        has(UInt8(ascii: "\""), in: word) || has(UInt8(ascii: "\\"), in: word) || hasByte(below: 0x20, in: word)
    }

    /// Whether every byte of `word` is ASCII.
    public static func isASCII(_ word: UInt64) -> Bool {
        word & highBits == 0
    }
}
