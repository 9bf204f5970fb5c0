import Essentials
import Foundation
import HTTP2
import HTTPTypes
import Providers
import Synchronization

/// A transport that answers from a closure and records every request.
final class ScriptedTransport: HTTPTransport {
    typealias Answer = @Sendable (HTTPRequest) async throws(HTTPError) -> HTTPResponse

    private let answer: Answer
    private let recorded = Mutex<[HTTPRequest]>([])

    init(_ answer: @escaping Answer) {
        self.answer = answer
    }

    var requests: [HTTPRequest] { recorded.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        return try await answer(request)
    }
}

extension HTTPResponse {
    /// A response with a JSON body.
    static func json(_ status: Int, _ body: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }
}

extension HTTPRequest {
    /// The first value of header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
