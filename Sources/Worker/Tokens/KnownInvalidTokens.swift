/// The tokens providers called dead, as read from the invalid-token topic: what the worker no longer
/// sends to. Pure.
///
/// Each entry is the platform and the 32-byte SHA-256 of the token (about 40 bytes, some 55 MB per million
/// tokens in a hash set), never the raw token. A record with an empty value (a tombstone, written when the
/// token's owner deletes it) removes the entry.
public struct KnownInvalidTokens: Sendable {
    struct Entry: Hashable, Sendable {
        let platform: UInt8
        let digest: SIMD4<UInt64>
    }

    private static let platforms = ["apns", "apns-voip", "fcm"]
    private var entries: Set<Entry> = []

    public init() {}

    /// How many tokens are known dead.
    public var count: Int { entries.count }

    /// Applies one record of the topic: its key `platform:sha256:<hex>`, and its value (empty for a
    /// tombstone). A key that is not of that form is ignored and reported `false`.
    @discardableResult
    public mutating func apply(key: String, value: [UInt8]) -> Bool {
        guard let separator = key.firstIndex(of: ":"),
            let entry = Self.entry(
                platform: String(key[..<separator]), tokenHash: String(key[key.index(after: separator)...]))
        else { return false }
        if value.isEmpty { entries.remove(entry) } else { entries.insert(entry) }
        return true
    }

    /// Whether the token with `tokenHash` (`sha256:<hex>`) on `platform` is known dead.
    public func contains(platform: String, tokenHash: String) -> Bool {
        Self.entry(platform: platform, tokenHash: tokenHash).map(entries.contains) ?? false
    }

    static func entry(platform: String, tokenHash: String) -> Entry? {
        guard let index = platforms.firstIndex(of: platform), tokenHash.hasPrefix("sha256:") else { return nil }
        let hex = Array(tokenHash.utf8.dropFirst("sha256:".count))
        guard hex.count == 64 else { return nil }
        var words = SIMD4<UInt64>()
        for word in 0..<4 {
            var value: UInt64 = 0
            for byte in hex[(word * 16)..<(word * 16 + 16)] {
                guard let nibble = Self.nibble(byte) else { return nil }
                value = value << 4 | nibble
            }
            words[word] = value
        }
        return Entry(platform: UInt8(index), digest: words)
    }

    private static func nibble(_ byte: UInt8) -> UInt64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt64(byte - UInt8(ascii: "a") + 10)
        default: nil
        }
    }
}
