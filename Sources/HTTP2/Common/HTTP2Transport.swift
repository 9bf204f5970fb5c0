public import HTTPTypes

/// An `HTTPTransport` over HTTP/2 with a thread of its own: the worker's clients to APNs and FCM. Shut down
/// explicitly (a transport also removes what it wrote, such as a combined CA file).
public protocol HTTP2Transport: HTTPTransport, AnyObject {
    /// How long ago the transport's thread last started a turn (it turns at least once a second while it runs).
    var timeSinceLastTurn: Duration { get }

    /// The CPU time the transport's thread has used (user and system) since it started: a loop that spins shows
    /// here.
    var threadCPUTime: Duration { get }

    /// Connections opened and requests sent again since the transport started.
    var counts: HTTP2TransportCounts { get }

    /// Fails every queued and in-flight request with `.cancelled`, closes the connections and stops the thread;
    /// later `send` calls fail with `.cancelled`.
    func shutdown() async
}

/// Which implementation carries the worker's HTTP/2 (`PUSH_HTTP_TRANSPORT`).
public enum HTTP2TransportKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// libcurl's multi interface (`CurlTransport`): the fallback; it also carries HTTP/1.1 origins for both kinds.
    case curl
    /// nghttp2 and OpenSSL directly (`NGHTTP2Transport`), about half libcurl's worker CPU per push: the default.
    case nghttp2

    public var description: String { rawValue }

    /// A new transport of this kind, started.
    public func make(_ configuration: HTTP2TransportConfiguration) throws(HTTPError) -> any HTTP2Transport {
        switch self {
        case .curl: try CurlTransport(configuration: configuration)
        case .nghttp2: try NGHTTP2Transport(configuration: configuration)
        }
    }
}

extension CurlTransport: HTTP2Transport {}
extension NGHTTP2Transport: HTTP2Transport {}
