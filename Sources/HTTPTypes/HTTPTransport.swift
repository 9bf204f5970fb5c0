/// Something that sends HTTP requests and returns complete responses. The production implementation multiplexes
/// over HTTP/2 with libcurl; tests use fakes. Throws `HTTPError` only.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}
