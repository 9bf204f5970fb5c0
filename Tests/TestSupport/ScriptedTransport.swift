public import HTTPTypes
import Synchronization

/// A transport that answers from a closure and records every request, and the groups `sendAll` was given.
public final class ScriptedTransport: HTTPTransport {
    public typealias Answer = @Sendable (HTTPRequest) async throws(HTTPError) -> HTTPResponse

    private let answer: Answer
    private let recorded = Mutex<[HTTPRequest]>([])
    private let recordedGroups = Mutex<[[HTTPRequest]]>([])

    public init(_ answer: @escaping Answer) {
        self.answer = answer
    }

    public var requests: [HTTPRequest] { recorded.withLock { $0 } }

    /// The requests of each `sendAll`, in call order.
    public var groups: [[HTTPRequest]] { recordedGroups.withLock { $0 } }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        return try await answer(request)
    }

    /// Records the group, then answers each request as `send` would, concurrently.
    public func sendAll(
        _ requests: [HTTPRequest], answer: @escaping @Sendable (Int, Result<HTTPResponse, HTTPError>) -> Void
    ) async {
        recordedGroups.withLock { $0.append(requests) }
        await withTaskGroup(of: Void.self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { answer(index, await self.result(of: request)) }
            }
        }
    }
}
