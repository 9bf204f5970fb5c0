import Glibc

/// Where the nghttp2 transport connects for an origin: its host (an IP literal without brackets), port, and the
/// `:authority` its requests carry.
struct OriginEndpoint: Equatable, Sendable {
    let host: String
    let port: UInt16
    /// `host[:port]` as the origin writes it (lowercased, IPv6 literals in brackets).
    let authority: String
    /// True when `host` is an IPv4 or IPv6 literal: verified as an address, sent without SNI.
    let isIPAddress: Bool

    /// Reads `origin`'s authority; nil if its port is not a number from 1 to 65535 or an IPv6 literal is not closed.
    init?(_ origin: RequestOrigin) {
        let prefix = origin.isTLS ? "https://" : "http://"
        let authority = String(origin.description.dropFirst(prefix.count))
        let host: Substring
        let port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
            port = rest.isEmpty ? nil : rest.dropFirst()
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority[...]
            port = nil
        }
        guard !host.isEmpty else { return nil }
        if let port {
            guard let number = UInt16(port), number > 0 else { return nil }
            self.port = number
        } else {
            self.port = origin.isTLS ? 443 : 80
        }
        self.host = String(host)
        self.authority = authority
        isIPAddress = Self.isIPAddress(self.host)
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }
}

extension RequestOrigin {
    /// The `:path` of `url` (whose origin this is): its path and query without the fragment; `/` when the URL has
    /// no path.
    static func path(of url: String) -> String {
        let bytes = url.utf8
        guard let separator = bytes.firstRange(of: "://".utf8) else { return "/" }
        let rest = bytes[separator.upperBound...]
        let start =
            rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        let end = rest[start...].firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex
        let path = Substring(rest[start..<end])
        if path.isEmpty { return "/" }
        return path.hasPrefix("/") ? String(path) : "/" + path
    }
}
