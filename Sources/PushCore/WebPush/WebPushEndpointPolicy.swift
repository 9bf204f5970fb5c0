import Foundation

/// Where the worker may send a Web Push request. An endpoint is data from the registry, so it may point anywhere:
/// by default only port 443, and no IP literal in a private, loopback, link-local, shared, multicast or
/// unspecified range (nor `localhost`). `WEBPUSH_ALLOW_PRIVATE_ENDPOINTS=true` (tests, the demo) allows both.
///
/// IP literals only: a name is not resolved here, so a name that resolves to a private address is not caught.
public struct WebPushEndpointPolicy: Sendable, Equatable {
    /// Allows private, loopback and link-local IP literals and ports other than 443.
    public var allowsPrivateEndpoints: Bool

    public init(allowsPrivateEndpoints: Bool = false) {
        self.allowsPrivateEndpoints = allowsPrivateEndpoints
    }

    /// Why `subscription`'s endpoint is refused, or `nil` when it may be sent to. Names the rule, not the endpoint.
    public func refusal(of subscription: WebPushSubscription) -> String? {
        if allowsPrivateEndpoints { return nil }
        if let refusal = Self.refusal(ofHost: subscription.host) { return refusal }
        if let port = subscription.port, port != 443 { return "the endpoint's port \(port) is not 443" }
        return nil
    }

    private static func refusal(ofHost host: String) -> String? {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "localhost." {
            return "the endpoint's host is localhost"
        }
        switch Self.address(host) {
        case .notAnAddress: return nil
        case .malformed: return "the endpoint's host is a numeric address in a non-canonical form"
        case .v4(let bytes): return Self.isPrivate(v4: bytes) ? "the endpoint is a private IPv4 address" : nil
        case .v6(let bytes):
            if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return Self.isPrivate(v4: Array(bytes.suffix(4))) ? "the endpoint is a private IPv4 address" : nil
            }
            return Self.isPrivate(v6: bytes) ? "the endpoint is a private IPv6 address" : nil
        }
    }

    private enum Address {
        case notAnAddress
        /// Looks numeric (its last label is digits or hex), but is no dotted quad: `127.1`, `0x7f.0.0.1`, `2130706433`,
        /// which resolvers read as addresses.
        case malformed
        case v4([UInt8])
        case v6([UInt8])
    }

    private static func address(_ host: String) -> Address {
        if host.contains(":") {
            var bytes = [UInt8](repeating: 0, count: 16)
            return inet_pton(AF_INET6, host, &bytes) == 1 ? .v6(bytes) : .malformed
        }
        let trimmed = host.hasSuffix(".") ? String(host.dropLast()) : host
        let last = trimmed.split(separator: ".", omittingEmptySubsequences: false).last ?? ""
        let looksNumeric =
            !last.isEmpty && (last.allSatisfy(\.isASCII) && last.allSatisfy(\.isNumber) || last.hasPrefix("0x"))
        guard looksNumeric else { return .notAnAddress }
        var bytes = [UInt8](repeating: 0, count: 4)
        return inet_pton(AF_INET, trimmed, &bytes) == 1 ? .v4(bytes) : .malformed
    }

    /// 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.168/16, 198.18/15, 224/4 and 240/4.
    private static func isPrivate(v4 bytes: [UInt8]) -> Bool {
        let (a, b, c) = (bytes[0], bytes[1], bytes[2])
        return a == 0 || a == 10 || a == 127 || a >= 224 || (a == 100 && (64...127).contains(b))
            || (a == 169 && b == 254) || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
            || (a == 192 && b == 0 && c == 0) || (a == 198 && (b == 18 || b == 19))
    }

    /// `::`, `::1`, fc00::/7 (unique local), fe80::/10 (link-local), fec0::/10 (site-local) and ff00::/8.
    private static func isPrivate(v6 bytes: [UInt8]) -> Bool {
        let unspecifiedOrLoopback = bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] <= 1
        return unspecifiedOrLoopback || bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0x80 == 0x80)
            || bytes[0] == 0xFF
    }
}
