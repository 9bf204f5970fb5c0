/// Something that sends HTTP requests and returns complete responses. The production implementations multiplex
/// over HTTP/2 with libcurl or nghttp2 (module `HTTP2`); tests use fakes. Throws `HTTPError` only.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}
