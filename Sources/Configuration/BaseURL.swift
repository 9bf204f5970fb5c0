import Essentials
import Glibc

/// The syntax check of a provider URL (`APNS_URL`, `FCM_URL`, a service account's `token_uri`): `https://` or
/// `http://`, a host (a DNS name, an IPv4 address or a bracketed IPv6 address), an optional port from 1 to 65535
/// and an optional path; no user info, query, fragment or spaces. The authority is split by `URLAuthority`. Pure.
package enum BaseURL {
    /// Why `text` is not such a URL, or `nil` when it is.
    package static func problem(with text: String) -> String? {
        let lowered = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }) else {
            return "is not an https URL like https://host:port"
        }
        guard !text.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" || $0 == "@" }) else {
            return "must not hold spaces, user info, a query or a fragment"
        }
        let authority = text.dropFirst(scheme.count).prefix { $0 != "/" }
        guard !authority.isEmpty else { return "has no host" }
        let parts: URLAuthority
        do {
            parts = try URLAuthority(authority)
        } catch {
            switch error {
            case .unclosedIPv6Literal: return "opens an IPv6 address with [ but never closes it"
            case .textAfterIPv6Literal: return "has text after the IPv6 address"
            case .emptyHost:
                return "holds '', which is not \(authority.hasPrefix("[") ? "an IPv6 address" : "a host name")"
            case .portOutOfRange:
                let port =
                    authority.hasPrefix("[")
                    ? authority.drop { $0 != "]" }.dropFirst(2) : authority.drop { $0 != ":" }.dropFirst()
                return "holds the port '\(port)', not one from 1 to 65535"
            }
        }
        if authority.hasPrefix("[") {
            guard isIPv6(parts.host) else { return "holds '\(parts.host)', which is not an IPv6 address" }
        } else {
            guard isHostName(parts.host) else { return "holds '\(parts.host)', which is not a host name" }
        }
        return nil
    }

    /// Letters, digits, `-` and `.`, in labels of 1 to 63 characters, 253 at most in all.
    private static func isHostName(_ host: String) -> Bool {
        guard (1...253).contains(host.utf8.count) else { return false }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count)
                && label.utf8.allSatisfy { byte in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                }
        }
    }

    private static func isIPv6(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, host, &address) == 1
    }
}
