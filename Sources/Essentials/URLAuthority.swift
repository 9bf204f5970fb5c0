/// The host and port of a URL's authority (`host[:port]`, an IPv6 literal in brackets), split as text: nothing is
/// looked up, and the host's characters are the caller's to judge. User information (`user@`) must be gone
/// before. Pure.
public struct URLAuthority: Sendable, Equatable {
    /// The host as written; an IPv6 literal without its brackets. Never empty.
    public var host: String
    /// The port, when the authority names one: from 1 to 65535.
    public var port: UInt16?

    /// Splits `authority`; throws what is wrong with it.
    public init(_ authority: some StringProtocol) throws(URLAuthorityError) {
        let text = Substring(authority)
        let host: Substring
        let portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .unclosedIPv6Literal }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw .textAfterIPv6Literal }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
            portText = nil
        }
        guard !host.isEmpty else { throw .emptyHost }
        if let portText {
            // Digits only: `UInt16("+443")` would accept a sign.
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let number = UInt16(portText), number > 0
            else { throw .portOutOfRange }
            port = number
        } else {
            port = nil
        }
        self.host = String(host)
    }
}

/// Why a URL's authority does not split into a host and a port; `description` says it in a few words.
public enum URLAuthorityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `[` opens an IPv6 literal that no `]` closes.
    case unclosedIPv6Literal
    /// Something other than `:port` follows an IPv6 literal's `]`.
    case textAfterIPv6Literal
    /// No host before the port (or nothing at all).
    case emptyHost
    /// The port is not a number from 1 to 65535 written in digits.
    case portOutOfRange

    public var description: String {
        switch self {
        case .unclosedIPv6Literal: "an IPv6 host must end with ]"
        case .textAfterIPv6Literal: "only a port may follow an IPv6 host"
        case .emptyHost: "must name a host"
        case .portOutOfRange: "the port must be a number from 1 to 65535"
        }
    }
}
