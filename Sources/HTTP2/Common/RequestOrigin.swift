import HTTPTypes

/// The scheme, host and port of a request URL: the unit of connection sharing and the only part of a URL
/// that may appear in messages (paths carry device tokens).
struct RequestOrigin: Hashable, Sendable, CustomStringConvertible {
    /// `scheme://host[:port]`, lowercased, without user information.
    let description: String
    /// True for `https`; cleartext `http` is HTTP/1.1 here (libcurl 7.88 does not multiplex prior-knowledge h2).
    let isTLS: Bool
    /// Only public addresses may be connected to (`HTTPRequest.publicAddressesOnly`): such an origin has its own
    /// connections.
    var publicAddressesOnly = false

    /// Parses the origin of an absolute `http` or `https` URL; nil if the URL is not one. Reads the URL's bytes in
    /// place and writes the origin's text once (it runs for every request): only an authority with non-ASCII bytes
    /// is checked and lowercased character by character.
    init?(url: String) {
        let bytes = url.utf8
        guard let separator = Self.firstIndex(of: "://", in: bytes) else { return nil }
        let scheme = bytes[..<separator]
        let isTLS: Bool
        if scheme.elementsEqualIgnoringASCIICase("https".utf8) {
            isTLS = true
        } else if scheme.elementsEqualIgnoringASCIICase("http".utf8) {
            isTLS = false
        } else {
            return nil
        }
        let rest = bytes[bytes.index(separator, offsetBy: 3)...]
        let authorityEnd =
            rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            authority = authority[authority.index(after: at)...]
        }
        guard !authority.isEmpty else { return nil }
        let prefix = isTLS ? "https://" : "http://"
        if authority.allSatisfy({ $0 < 0x80 }) {
            guard !authority.contains(where: { $0 == 0x20 || (0x09...0x0D).contains($0) }) else { return nil }
            description = String(unsafeUninitializedCapacity: prefix.utf8.count + authority.count) { text in
                var count = 0
                for byte in prefix.utf8 {
                    text[count] = byte
                    count += 1
                }
                for byte in authority {
                    text[count] = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
                    count += 1
                }
                return count
            }
        } else {
            let text = String(Substring(authority))
            guard !text.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
            description = prefix + text.lowercased()
        }
        self.isTLS = isTLS
    }

    /// Whether `url` is this origin's text followed by its path, query or fragment: the origin `init(url:)` would
    /// parse from it, found without parsing.
    func begins(_ url: String) -> Bool {
        let prefix = description.utf8
        let bytes = url.utf8
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return false }
        let next = bytes[bytes.index(bytes.startIndex, offsetBy: prefix.count)]
        return next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#")
    }

    /// The index of the first `needle` in `bytes`.
    private static func firstIndex(of needle: StaticString, in bytes: String.UTF8View) -> String.Index? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        var start = bytes.startIndex
        while start != bytes.endIndex {
            if bytes[start...].starts(with: pattern) { return start }
            start = bytes.index(after: start)
        }
        return nil
    }

}
