import Observability
import Sockets

/// Where and how strictly an HTTP server (the status endpoints, the ingress) listens.
public struct HTTPServerConfiguration: Sendable, Equatable {
    /// The numeric address to bind: `0.0.0.0` (all IPv4, the default for pods), `::`, `127.0.0.1`, …
    public var host: String
    /// The TCP port; 0 picks a free one (tests), read back from the server's `port`.
    public var port: Int
    /// How long a connection may stay idle (no byte either way) before it is closed; whole seconds, at least 1.
    public var connectionTimeout: Duration
    /// The buffer memory of one connection, which bounds the request head (a longer one gets 431).
    public var connectionMemoryLimit: Int
    /// The most connections held at once; more wait in the listen backlog.
    public var connectionLimit: Int
    /// libmicrohttpd's worker threads, so that rendering a scrape never delays a probe.
    public var threadPoolSize: Int
    /// How many connections may wait for accept.
    public var backlog: Int32
    /// TLS directly in the server; `nil` for plain HTTP (TLS ends in front of it, or the status port).
    public var tls: ServerTLS? = nil
    /// How long one request's head and body may take to arrive, however steadily the bytes trickle in; with it, a new
    /// connection beyond `connectionLimit` also closes the one that has been reading its request longest (up to twice
    /// `connectionLimit` are accepted meanwhile). `nil`: only `connectionTimeout` bounds a slow request.
    public var requestDeadline: Duration? = nil
    /// The most connections held at once from one client address; `nil` for no such bound.
    public var connectionsPerAddress: Int? = nil

    public init(
        host: String = "0.0.0.0",
        port: Int = 9464,
        connectionTimeout: Duration = .seconds(2),
        connectionMemoryLimit: Int = 16_384,
        connectionLimit: Int = 256,
        threadPoolSize: Int = 2,
        backlog: Int32 = 64
    ) {
        self.host = host
        self.port = port
        self.connectionTimeout = connectionTimeout
        self.connectionMemoryLimit = connectionMemoryLimit
        self.connectionLimit = connectionLimit
        self.threadPoolSize = threadPoolSize
        self.backlog = backlog
    }

    /// Whether `host` can be bound: a numeric IPv4 or IPv6 address (no name lookup at start).
    public static func isBindable(host: String) -> Bool {
        SocketAddress.isNumericHost(host)
    }
}
