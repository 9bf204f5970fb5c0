/// Answers the requests of a `MicroHTTPServer`.
public protocol HTTPRequestHandler: Sendable {
    /// The longest body kept; a longer one is dropped unread (or, past a `Content-Length`, never read) and the
    /// request reaches `handle` with `bodyTooLarge` set.
    var maximumBodyBytes: Int { get }

    /// Answers `request` by calling `respond` exactly once, at once or later from any thread: until then the
    /// connection is suspended, holding no thread of the server.
    func handle(_ request: HTTPServerRequest, respond: @escaping @Sendable (HTTPServerResponse) -> Void)
}
