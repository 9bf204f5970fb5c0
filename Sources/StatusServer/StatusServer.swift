public import Observability

/// The HTTP/1.1 status endpoints of the process — `/metrics`, `/healthz` and `/readyz` — served by a
/// `MicroHTTPServer` (libmicrohttpd), with its bounds on idle, slow and many clients.
public final class StatusServer: Sendable {
    /// The port actually bound (the configured one, or the one the system chose for port 0).
    public var port: Int { server.port }
    private let server: MicroHTTPServer

    /// Binds the socket and starts answering on libmicrohttpd's threads.
    public static func start(
        configuration: HTTPServerConfiguration,
        registry: MetricsRegistry,
        liveness: HealthChecks,
        readiness: HealthChecks,
        logger: Logger
    ) throws(HTTPServerError) -> StatusServer {
        let routes = StatusRoutes(registry: registry, liveness: liveness, readiness: readiness)
        let server = try MicroHTTPServer.start(configuration: configuration, handler: routes)
        logger.info(
            "status endpoints listening",
            metadata: ["http.host": .string(configuration.host), "http.port": LogMetadataValue(server.port)])
        return StatusServer(server: server)
    }

    private init(server: MicroHTTPServer) {
        self.server = server
    }

    /// Stops accepting, closes every connection, joins libmicrohttpd's threads and closes the socket.
    /// Safe to call more than once.
    public func stop() {
        server.stop()
    }
}
