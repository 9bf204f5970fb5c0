/// Something that sends HTTP requests and returns complete responses. The production implementations multiplex
/// over HTTP/2 with libcurl or nghttp2 (module `HTTP2`); tests use fakes. Throws `HTTPError` only.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
    /// Sends every request at the same time: `answer` is called with each request's index in `requests` and its
    /// response or error as each one arrives, from any thread (keep it short), once per request; returns when every
    /// request was answered. A transport that can hand a group to its thread together (one wake-up, one wait for
    /// all) implements it; the default makes one concurrent `send` each.
    func sendAll(
        _ requests: [HTTPRequest], answer: @escaping @Sendable (Int, Result<HTTPResponse, HTTPError>) -> Void
    ) async
}

extension HTTPTransport {
    /// One concurrent `send` per request (a single one in the calling task).
    public func sendAll(
        _ requests: [HTTPRequest], answer: @escaping @Sendable (Int, Result<HTTPResponse, HTTPError>) -> Void
    ) async {
        if requests.count == 1 { return answer(0, await result(of: requests[0])) }
        await withTaskGroup(of: Void.self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { answer(index, await result(of: request)) }
            }
        }
    }

    /// `send`'s response or error as a value.
    public func result(of request: HTTPRequest) async -> Result<HTTPResponse, HTTPError> {
        do {
            return .success(try await send(request))
        } catch {
            return .failure(error)
        }
    }
}
