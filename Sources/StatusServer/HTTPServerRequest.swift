/// One HTTP request as a handler of `MicroHTTPServer` sees it, read whole (head and body).
public struct HTTPServerRequest: Sendable, Equatable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path of the request target, without the query string.
    public var path: String
    /// The header fields, names lower-cased; a repeated field keeps its last value.
    public var headers: [String: String]
    /// The query parameters, decoded; a repeated parameter keeps its last value.
    public var query: [String: String]
    /// The body; empty when there was none or when it was over the limit.
    public var body: [UInt8]
    /// Whether the body was longer than the server's `maximumBodyBytes` (and so was not kept).
    public var bodyTooLarge: Bool
    /// The client's IP address as 4 (IPv4) or 16 (IPv6) bytes; empty when unknown.
    public var clientAddress: [UInt8]

    public init(
        method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:],
        body: [UInt8] = [], bodyTooLarge: Bool = false, clientAddress: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.clientAddress = clientAddress
    }
}
