public import HTTPTypes
import Synchronization

/// A transport that answers from a closure and records every request.
public final class ScriptedTransport: HTTPTransport {
    public typealias Answer = @Sendable (HTTPRequest) async throws(HTTPError) -> HTTPResponse

    private let answer: Answer
    private let recorded = Mutex<[HTTPRequest]>([])

    public init(_ answer: @escaping Answer) {
        self.answer = answer
    }

    public var requests: [HTTPRequest] { recorded.withLock { $0 } }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        return try await answer(request)
    }
}
