import Glibc

/// The syntax check of a provider URL (`APNS_URL`, `FCM_URL`, a service account's `token_uri`): `https://` or
/// `http://`, a host (a DNS name, an IPv4 address or a bracketed IPv6 address), an optional port from 1 to 65535
/// and an optional path; no user info, query, fragment or spaces. Pure.
package enum BaseURL {
    /// Why `text` is not such a URL, or `nil` when it is.
    package static func problem(with text: String) -> String? {
        let lowered = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }) else {
            return "is not an https URL like https://host:port"
        }
        let rest = text.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" }
        guard !text.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" || $0 == "@" }) else {
            return "must not hold spaces, user info, a query or a fragment"
        }
        guard !authority.isEmpty else { return "has no host" }
        let host: Substring
        let port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                return "opens an IPv6 address with [ but never closes it"
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return "has text after the IPv6 address" }
            port = after.isEmpty ? nil : after.dropFirst()
            guard isIPv6(host) else { return "holds '\(host)', which is not an IPv6 address" }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            port = parts.count == 2 ? parts[1] : nil
            guard isHostName(host) else { return "holds '\(host)', which is not a host name" }
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(port),
                (1...65_535).contains(number)
            else { return "holds the port '\(port)', not one from 1 to 65535" }
        }
        return nil
    }

    /// Letters, digits, `-` and `.`, in labels of 1 to 63 characters, 253 at most in all.
    private static func isHostName(_ host: Substring) -> Bool {
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

    private static func isIPv6(_ host: Substring) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, String(host), &address) == 1
    }
}
