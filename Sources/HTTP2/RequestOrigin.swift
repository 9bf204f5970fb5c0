/// The scheme, host and port of a request URL: the unit of connection sharing and the only part of a URL
/// that may appear in messages (paths carry device tokens).
struct RequestOrigin: Hashable, Sendable, CustomStringConvertible {
    /// `scheme://host[:port]`, lowercased, without user information.
    let description: String
    /// True for `https`; cleartext `http` is HTTP/1.1 here (libcurl 7.88 does not multiplex prior-knowledge h2).
    let isTLS: Bool

    /// Parses the origin of an absolute `http` or `https` URL; nil if the URL is not one.
    init?(url: String) {
        guard let separator = url.range(of: "://") else { return nil }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        let rest = url[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }
        guard !authority.isEmpty, !authority.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
        description = "\(scheme)://\(authority.lowercased())"
        isTLS = scheme == "https"
    }
}
