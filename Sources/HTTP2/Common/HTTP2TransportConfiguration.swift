/// The knobs of both HTTP/2 transports (`CurlTransport`, `NGHTTP2Transport`), with defaults that suit APNs and FCM.
public struct HTTP2TransportConfiguration: Sendable {
    /// Connections opened to one origin (scheme, host, port) at most.
    public var maxConnectionsPerHost: Int
    /// Streams in flight on one connection at most; the client keeps at most
    /// `maxConnectionsPerHost × maxStreamsPerConnection` requests of one origin in flight and queues the rest.
    public var maxStreamsPerConnection: Int
    /// Requests accepted (queued or in flight) at most; `send` waits for room beyond that (back-pressure).
    public var maxOutstandingRequests: Int
    /// The longest a TCP + TLS connect may take (never longer than the request's own deadline).
    public var connectTimeout: Duration
    /// A PEM file of extra certificate authorities to trust in addition to the system's (`PUSH_CA_FILE`).
    public var extraCAFile: String?
    /// The TLS client certificate presented on every connection (APNs certificate auth); nil for none.
    public var clientCertificate: ClientCertificate?
    /// Idle time before TCP keepalive probes start, and the interval between probes.
    public var tcpKeepAlive: Duration
    /// A connection idle for longer than this is closed instead of reused.
    public var idleConnectionTimeout: Duration
    /// The response bytes (header fields, those of informational responses too, and body) one request may
    /// receive, on either transport. Providers answer in bytes, so more is a fault or an attack: a larger response
    /// fails its request with `.connectionLost`, its stream is reset (the connection goes on), and
    /// `HTTP2TransportCounts.oversizedResponses` counts it.
    public var maxResponseBytes: Int
    /// The response headers kept in a response (`HTTPResponse.headers`); by default every one. The others still count
    /// towards `maxResponseBytes`.
    public var keptResponseHeaders: KeptResponseHeaders

    public init(
        maxConnectionsPerHost: Int = 4,
        maxStreamsPerConnection: Int = 100,
        maxOutstandingRequests: Int = 10_000,
        connectTimeout: Duration = .seconds(10),
        extraCAFile: String? = nil,
        clientCertificate: ClientCertificate? = nil,
        tcpKeepAlive: Duration = .seconds(30),
        idleConnectionTimeout: Duration = .seconds(120),
        maxResponseBytes: Int = 1 << 20,
        keptResponseHeaders: KeptResponseHeaders = .all
    ) {
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxStreamsPerConnection = maxStreamsPerConnection
        self.maxOutstandingRequests = maxOutstandingRequests
        self.connectTimeout = connectTimeout
        self.extraCAFile = extraCAFile
        self.clientCertificate = clientCertificate
        self.tcpKeepAlive = tcpKeepAlive
        self.idleConnectionTimeout = idleConnectionTimeout
        self.maxResponseBytes = maxResponseBytes
        self.keptResponseHeaders = keptResponseHeaders
    }

    /// Requests of one origin in flight at most once the origin has answered with success.
    var maxInFlightPerOrigin: Int { max(1, maxConnectionsPerHost) * max(1, maxStreamsPerConnection) }
}
