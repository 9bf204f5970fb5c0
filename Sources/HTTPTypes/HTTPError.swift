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
        /// The host resolved only to addresses the request may not connect to (`publicAddressesOnly`); nothing was
        /// connected to.
        case addressRefused
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
