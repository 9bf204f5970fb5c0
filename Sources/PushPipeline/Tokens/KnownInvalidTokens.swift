/// The tokens providers called dead, as read from the invalid-token topic: what the worker no longer
/// sends to. Pure.
///
/// Each entry is the platform and the 32-byte SHA-256 of the token (40 bytes; in a hash set that grows by
/// doubling, 55 to 85 MB per million tokens), never the raw token. A record with an empty value (a tombstone, written when the
/// token's owner deletes it) removes the entry.
public struct KnownInvalidTokens: Sendable {
    struct Entry: Hashable, Sendable {
        let platform: UInt8
        let digest: (UInt64, UInt64, UInt64, UInt64)

        static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.platform == rhs.platform && lhs.digest == rhs.digest
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(platform)
            hasher.combine(digest.0)
            hasher.combine(digest.1)
            hasher.combine(digest.2)
            hasher.combine(digest.3)
        }
    }

    private static let platforms = ["apns", "apns-voip", "fcm", "web"]
    private var entries: Set<Entry> = []

    public init() {}

    /// How many tokens are known dead.
    public var count: Int { entries.count }

    /// The bytes the entries' storage takes: every bucket of the hash set's capacity holds an entry's stride, plus
    /// one bit of occupancy.
    public var storageBytes: Int { entries.capacity * MemoryLayout<Entry>.stride + entries.capacity / 8 }

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
        var words: [UInt64] = [0, 0, 0, 0]
        for word in 0..<4 {
            var value: UInt64 = 0
            for byte in hex[(word * 16)..<(word * 16 + 16)] {
                guard let nibble = Self.nibble(byte) else { return nil }
                value = value << 4 | nibble
            }
            words[word] = value
        }
        return Entry(platform: UInt8(index), digest: (words[0], words[1], words[2], words[3]))
    }

    private static func nibble(_ byte: UInt8) -> UInt64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt64(byte - UInt8(ascii: "a") + 10)
        default: nil
        }
    }
}
