import Essentials
import Sockets

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
        guard let parts = try? URLAuthority(authority) else { return nil }
        host = parts.host
        port = parts.port ?? (origin.isTLS ? 443 : 80)
        self.authority = authority
        isIPAddress = SocketAddress.isNumericHost(self.host)
    }
}

extension RequestOrigin {
    /// Where the `:path` of `url` (whose origin this is) lies in its bytes — its path and query without the
    /// fragment — and whether a `/` must go before it (a URL with no path, or only a query).
    static func pathRange(in url: UnsafeBufferPointer<UInt8>) -> (range: Range<Int>, needsSlash: Bool) {
        var start = 0
        while start + 2 < url.count, !(url[start] == 0x3A && url[start + 1] == 0x2F && url[start + 2] == 0x2F) {
            start += 1
        }
        start = min(url.count, start + 3)  // past "://"
        while start < url.count, url[start] != 0x2F, url[start] != 0x3F, url[start] != 0x23 { start += 1 }
        var end = start
        while end < url.count, url[end] != 0x23 { end += 1 }
        return (start..<end, start == end || url[start] != 0x2F)
    }
}
