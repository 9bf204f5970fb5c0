/// The scheme, host and port of a request URL: the unit of connection sharing and the only part of a URL
/// that may appear in messages (paths carry device tokens).
struct RequestOrigin: Hashable, Sendable, CustomStringConvertible {
    /// `scheme://host[:port]`, lowercased, without user information.
    let description: String
    /// True for `https`; cleartext `http` is HTTP/1.1 here (libcurl 7.88 does not multiplex prior-knowledge h2).
    let isTLS: Bool

    /// Parses the origin of an absolute `http` or `https` URL; nil if the URL is not one. Reads the URL's bytes
    /// (it runs for every request): only an authority with non-ASCII bytes is checked character by character.
    init?(url: String) {
        let bytes = Array(url.utf8)
        guard let separator = Self.range(of: "://", in: bytes) else { return nil }
        let scheme = String(decoding: bytes[..<separator], as: UTF8.self).lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        let rest = bytes[(separator + 3)...]
        let ends: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")]
        let authorityEnd = rest.firstIndex(where: ends.contains) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            authority = authority[(at + 1)...]
        }
        let text = String(decoding: authority, as: UTF8.self)
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
        let hasBlank =
            authority.allSatisfy { $0 < 0x80 }
            ? authority.contains(where: isBlank) : text.contains { $0.isWhitespace || $0.isNewline }
        guard !authority.isEmpty, !hasBlank else { return nil }
        description = "\(scheme)://\(text.lowercased())"
        isTLS = scheme == "https"
    }

    /// The index of the first `needle` in `bytes`.
    private static func range(of needle: StaticString, in bytes: [UInt8]) -> Int? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard bytes.count >= pattern.count else { return nil }
        return (0...(bytes.count - pattern.count)).first { start in
            bytes[start..<(start + pattern.count)].elementsEqual(pattern)
        }
    }
}
