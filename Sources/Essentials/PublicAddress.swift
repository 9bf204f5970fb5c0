/// Whether an IP address is one a service on the internet may have: not private, loopback, link-local, shared,
/// reserved-for-benchmarks, multicast or unspecified. Where Web Push endpoints may point, checked on their IP
/// literals and on the addresses their names resolve to.
public enum PublicAddress {
    /// Whether the IPv4 address `bytes` (4) is public: not 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12,
    /// 192.0.0/24, 192.168/16, 198.18/15, 224/4 or 240/4.
    public static func isPublic(v4 bytes: [UInt8]) -> Bool {
        guard bytes.count == 4 else { return false }
        let (a, b, c) = (bytes[0], bytes[1], bytes[2])
        let isPrivate =
            a == 0 || a == 10 || a == 127 || a >= 224 || (a == 100 && (64...127).contains(b))
            || (a == 169 && b == 254) || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
            || (a == 192 && b == 0 && c == 0) || (a == 198 && (b == 18 || b == 19))
        return !isPrivate
    }

    /// Whether the IPv6 address `bytes` (16) is public: not `::`, `::1`, fc00::/7 (unique local), fe80::/10
    /// (link-local), fec0::/10 (site-local) or ff00::/8; an IPv4-mapped one (`::ffff:a.b.c.d`) as its IPv4 address.
    public static func isPublic(v6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return false }
        if let mapped = v4Mapped(bytes) { return isPublic(v4: mapped) }
        let unspecifiedOrLoopback = bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] <= 1
        let isPrivate =
            unspecifiedOrLoopback || bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0x80 == 0x80)
            || bytes[0] == 0xFF
        return !isPrivate
    }

    /// The IPv4 address of an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`).
    public static func v4Mapped(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count == 16, bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else {
            return nil
        }
        return Array(bytes.suffix(4))
    }
}
