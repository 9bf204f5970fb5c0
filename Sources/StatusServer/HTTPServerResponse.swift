/// What a handler of `MicroHTTPServer` answers; the server adds `Content-Length` and omits the body for HEAD.
public struct HTTPServerResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    /// Further header fields, e.g. `Retry-After`.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(
        status: Int, contentType: String = "text/plain; charset=utf-8", headers: [String: String] = [:],
        body: [UInt8]
    ) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }
}
