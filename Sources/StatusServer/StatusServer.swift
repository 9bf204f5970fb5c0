internal import CMicroHTTPD
import Glibc
import Observability
import Synchronization

/// The HTTP/1.1 status endpoints of the process — `/metrics`, `/healthz` and `/readyz` — served by libmicrohttpd.
///
/// libmicrohttpd runs its own threads (never Swift's cooperative pool): one listening thread that polls every
/// connection with epoll and a small pool of workers, so an idle or slow client costs a connection slot and never
/// delays another client's answer. A connection idle for `connectionTimeout` is closed; its buffers (and with them
/// the request head) are bounded by `connectionMemoryLimit`; at most `connectionLimit` are held at once.
public final class StatusServer: Sendable {
    /// The port actually bound (the configured one, or the one the system chose for port 0).
    public let port: Int
    private let daemon: Mutex<Daemon?>

    /// Binds the socket and starts answering on libmicrohttpd's threads.
    public static func start(
        configuration: StatusServerConfiguration,
        registry: MetricsRegistry,
        liveness: HealthChecks,
        readiness: HealthChecks,
        logger: Logger
    ) throws(StatusServerError) -> StatusServer {
        let address = "\(configuration.host):\(configuration.port)"
        let listener = try SocketAddress.listen(
            host: configuration.host, port: configuration.port, backlog: configuration.backlog
        ).get()
        guard let port = SocketAddress.boundPort(of: listener) else {
            let reason = SocketAddress.errnoText()
            close(listener)
            throw StatusServerError(address: address, reason: reason)
        }
        let routes = Unmanaged.passRetained(
            RoutesBox(StatusRoutes(registry: registry, liveness: liveness, readiness: readiness)))
        let (timeoutSeconds, _) = configuration.connectionTimeout.components
        guard
            let handle = pw_mhd_start_daemon(
                listener, UInt32(clamping: configuration.threadPoolSize), UInt32(clamping: max(1, timeoutSeconds)),
                configuration.connectionMemoryLimit, UInt32(clamping: configuration.connectionLimit),
                answer, routes.toOpaque())
        else {
            routes.release()
            close(listener)
            throw StatusServerError(address: address, reason: "libmicrohttpd could not start")
        }
        logger.info(
            "status endpoints listening",
            metadata: ["http.host": .string(configuration.host), "http.port": LogMetadataValue(port)])
        return StatusServer(port: port, daemon: Daemon(handle: handle, routes: routes))
    }

    private init(port: Int, daemon: Daemon) {
        self.port = port
        self.daemon = Mutex(daemon)
    }

    /// Stops accepting, closes every connection, joins libmicrohttpd's threads and closes the socket.
    /// Safe to call more than once.
    public func stop() {
        guard let daemon = daemon.withLock({ $0.take() }) else { return }
        MHD_stop_daemon(daemon.handle)
        daemon.routes.release()
    }

    deinit {
        stop()
    }
}

/// The running daemon and the routes its callback reads; only `stop()` touches it, once.
private struct Daemon: @unchecked Sendable {
    // Safe: the handle is used only to stop the daemon, under the server's lock, exactly once.
    let handle: OpaquePointer
    let routes: Unmanaged<RoutesBox>
}

/// The routes as a class, so that libmicrohttpd's callback can reach them through its context pointer.
private final class RoutesBox: Sendable {
    let routes: StatusRoutes
    init(_ routes: StatusRoutes) { self.routes = routes }
}

/// libmicrohttpd's access handler: answers as soon as the request head is read (a request body is never used).
private let answer: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, _, _ in
    guard let context, let connection, let url, let method else { return .NO }
    let routes = Unmanaged<RoutesBox>.fromOpaque(context).takeUnretainedValue().routes
    let response = routes.respond(method: String(cString: method), path: String(cString: url))
    let body = Array(response.body.utf8)
    guard
        let reply = body.withUnsafeBytes({ pw_mhd_response_copying($0.count, $0.baseAddress) })
    else { return .NO }
    defer { MHD_destroy_response(reply) }
    let headers =
        ["Content-Type": response.contentType, "Cache-Control": "no-store", "Connection": "close"]
        .merging(response.extraHeaders) { _, extra in extra }
    for (name, value) in headers { _ = MHD_add_response_header(reply, name, value) }
    return MHD_queue_response(connection, UInt32(response.status), reply)
}
