/// One header field of a request or response. Names are compared case-insensitively by `HTTPResponse.header(_:)`.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request to send over HTTP/2.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The absolute URL, e.g. `https://api.push.apple.com/3/device/<token>`.
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// The longest the whole exchange may take, from being queued to the last byte of the response.
    public var deadline: Duration
    /// Sends the request on a newly opened connection rather than a pooled one (after a provider rejected what
    /// a connection carried). At the per-host connection limit, libcurl closes the oldest idle connection to
    /// that origin to make room, so the new connection replaces it.
    public var freshConnection: Bool

    public init(
        method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8] = [], deadline: Duration,
        freshConnection: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.deadline = deadline
        self.freshConnection = freshConnection
    }
}

/// A complete response: status, headers and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// Why a request got no response.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure; what a caller decides on.
    public enum Kind: Sendable, Equatable {
        /// Could not connect (DNS, refused, unreachable, connect timeout).
        case connect
        /// TLS handshake or certificate verification failed; retrying will not help until configuration changes.
        case tls
        /// The request's deadline passed before the response was complete.
        case timeout
        /// The connection or stream was lost after the request may have reached the server.
        case connectionLost
        /// The request was cancelled by the caller or by shutdown.
        case cancelled
        /// The request itself is malformed (bad URL, unsupported method).
        case invalidRequest
    }

    public var kind: Kind
    /// A readable explanation without secrets or device tokens.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind): \(message)" }
}

/// Something that sends HTTP requests and returns complete responses. The production implementation multiplexes
/// over HTTP/2 with libcurl; tests use fakes. Throws `HTTPError` only.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}
