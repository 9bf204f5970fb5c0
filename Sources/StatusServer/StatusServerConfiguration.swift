import Observability

/// Where and how strictly the status endpoints listen.
public struct StatusServerConfiguration: Sendable, Equatable {
    /// The numeric address to bind: `0.0.0.0` (all IPv4, the default for pods), `::`, `127.0.0.1`, …
    public var host: String
    /// The TCP port; 0 picks a free one (tests), read back from `StatusServer.port`.
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

    /// The port from `PUSH_HTTP_PORT` (default 9464) and the address from `PUSH_HTTP_HOST` (default `0.0.0.0`).
    public static func fromEnvironment(_ environment: [String: String]) throws(InvalidSetting) -> Self {
        var configuration = Self()
        if let text = environment["PUSH_HTTP_PORT"], !text.isEmpty {
            guard let port = Int(text), (0...65_535).contains(port) else {
                throw InvalidSetting(variable: "PUSH_HTTP_PORT", reason: "'\(text)' is not a port number (0-65535)")
            }
            configuration.port = port
        }
        if let host = environment["PUSH_HTTP_HOST"], !host.isEmpty {
            guard SocketAddress.isNumericHost(host) else {
                throw InvalidSetting(
                    variable: "PUSH_HTTP_HOST", reason: "'\(host)' is not a numeric IPv4 or IPv6 address")
            }
            configuration.host = host
        }
        return configuration
    }
}
