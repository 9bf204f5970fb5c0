import Essentials
import Foundation

/// Where the worker may send a Web Push request. An endpoint is data from the registry, so it may point anywhere:
/// by default only port 443, and no IP literal in a private, loopback, link-local, shared, multicast or
/// unspecified range (nor `localhost`). `WEBPUSH_ALLOW_PRIVATE_ENDPOINTS=true` (tests, the demo) allows both.
///
/// IP literals here, before anything is resolved; a name's addresses are checked by the transport, on the addresses
/// it connects to (`HTTPRequest.publicAddressesOnly`, which `WebPushClient` sets unless private endpoints are allowed).
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
        case .v4(let bytes): return PublicAddress.isPublic(v4: bytes) ? nil : "the endpoint is a private IPv4 address"
        case .v6(let bytes):
            if let mapped = PublicAddress.v4Mapped(bytes) {
                return PublicAddress.isPublic(v4: mapped) ? nil : "the endpoint is a private IPv4 address"
            }
            return PublicAddress.isPublic(v6: bytes) ? nil : "the endpoint is a private IPv6 address"
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
}
