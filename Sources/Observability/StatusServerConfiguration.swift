/// Where and how strictly the status endpoints listen.
public struct StatusServerConfiguration: Sendable, Equatable {
    /// The numeric address to bind: `0.0.0.0` (all IPv4, the default for pods), `::`, `127.0.0.1`, …
    public var host: String
    /// The TCP port; 0 picks a free one (tests), read back from `StatusServer.port`.
    public var port: Int
    /// The longest one connection may take, from accept to the last byte of the response.
    public var connectionTimeout: Duration
    /// The largest request head accepted; longer ones get 431.
    public var maximumRequestHeadBytes: Int
    /// How many connections may wait for accept.
    public var backlog: Int32

    public init(
        host: String = "0.0.0.0",
        port: Int = 9464,
        connectionTimeout: Duration = .seconds(2),
        maximumRequestHeadBytes: Int = 8192,
        backlog: Int32 = 64
    ) {
        self.host = host
        self.port = port
        self.connectionTimeout = connectionTimeout
        self.maximumRequestHeadBytes = maximumRequestHeadBytes
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
