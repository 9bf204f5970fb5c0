import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP/1.1 status endpoints of the process: `/metrics` (Prometheus text), `/healthz` (the process is alive)
/// and `/readyz` (every readiness condition holds).
///
/// Thin and bounded: one dedicated thread (never Swift's cooperative pool) answers one connection at a time,
/// reads at most `maximumRequestHeadBytes`, gives each connection `connectionTimeout` in all and closes it after
/// the response. `stop()` wakes the thread through a pipe, joins it and closes the socket.
public final class StatusServer: Sendable {
    /// The port actually bound (the configured one, or the one the system chose for port 0).
    public let port: Int
    private let thread: ServerThread
    /// Written once by `stop()` to wake the server's `poll`.
    private let wakeWriter: Int32
    private let stopped = Atomic<Bool>(false)

    /// Binds the socket and starts answering on a thread of its own.
    public static func start(
        configuration: StatusServerConfiguration,
        registry: MetricsRegistry,
        readiness: Readiness,
        logger: Logger
    ) throws(StatusServerError) -> StatusServer {
        let listener = try SocketAddress.listen(
            host: configuration.host, port: configuration.port, backlog: configuration.backlog
        ).get()
        var wake: [Int32] = [-1, -1]
        guard let port = SocketAddress.boundPort(of: listener), pipe(&wake) == 0 else {
            let reason = SocketAddress.errnoText()
            close(listener)
            throw StatusServerError(address: "\(configuration.host):\(configuration.port)", reason: reason)
        }
        for descriptor in wake { SocketAddress.setCloseOnExec(descriptor) }
        let loop = AcceptLoop(
            listener: listener, wakeReader: wake[0], configuration: configuration,
            routes: StatusRoutes(registry: registry, readiness: readiness), logger: logger)
        guard let thread = ServerThread.start({ loop.run() }) else {
            for descriptor in [listener, wake[0], wake[1]] { close(descriptor) }
            throw StatusServerError(address: "\(configuration.host):\(port)", reason: "no thread for the server")
        }
        logger.info(
            "status endpoints listening",
            metadata: ["http.host": .string(configuration.host), "http.port": LogMetadataValue(port)])
        return StatusServer(port: port, thread: thread, wakeWriter: wake[1])
    }

    private init(port: Int, thread: ServerThread, wakeWriter: Int32) {
        self.port = port
        self.thread = thread
        self.wakeWriter = wakeWriter
    }

    /// Stops accepting, abandons a connection still being answered, joins the thread and closes the socket.
    /// Safe to call more than once. Waits for the thread to notice (a scrape being rendered at most): call it at
    /// shutdown, not on a hot path.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
        thread.join()
        close(wakeWriter)
    }

    deinit {
        stop()
    }
}

/// The server thread's loop: waits for a connection or the wake-up, answers connections one by one.
private struct AcceptLoop: Sendable {
    let listener: Int32
    let wakeReader: Int32
    let configuration: StatusServerConfiguration
    let routes: StatusRoutes
    let logger: Logger

    func run() {
        defer {
            close(listener)
            close(wakeReader)
        }
        while true {
            var descriptors = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("status endpoints stopped", metadata: ["error": .string(SocketAddress.errnoText())])
                return
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents & Int16(POLLIN) != 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED || errno == EAGAIN { continue }
                // Out of descriptors or memory: back off instead of spinning on a listener that stays readable.
                logger.warning("status endpoint accept failed", metadata: ["error": .string(SocketAddress.errnoText())])
                var wake = pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)
                if poll(&wake, 1, 100) > 0 { return }
                continue
            }
            SocketAddress.setCloseOnExec(client)
            let connection = Connection(
                descriptor: client, wakeReader: wakeReader,
                deadline: ContinuousClock.now + configuration.connectionTimeout)
            if !answer(connection) {
                logger.debug("status request abandoned", metadata: ["http.reason": "timeout or reset"])
            }
            close(client)
        }
    }

    /// Reads the request head and writes the response; false when the client was too slow or went away.
    private func answer(_ connection: Connection) -> Bool {
        var head: [UInt8] = []
        var response: StatusResponse?
        var unreadInput = false
        while response == nil {
            guard let chunk = connection.read(upTo: configuration.maximumRequestHeadBytes + 1 - head.count) else {
                return false
            }
            head += chunk
            do throws(StatusRequest.ParseError) {
                response = routes.respond(to: try StatusRequest.parse(head))
            } catch .incomplete {
                if head.count > configuration.maximumRequestHeadBytes {
                    response = StatusRoutes.failure(431, "Request Header Fields Too Large")
                    unreadInput = true
                }
            } catch {
                response = StatusRoutes.failure(400, "Bad Request")
                unreadInput = true
            }
        }
        guard let response, connection.write(response.serialized()) else { return false }
        // Closing with unread input resets the connection, which can destroy the response before the client
        // reads it: end our side first and discard what the client still sends, within the same deadline.
        if unreadInput { connection.drain(upTo: 1 << 16) }
        return true
    }
}

/// One accepted client socket with the deadline of its whole exchange; every wait also watches the wake-up pipe.
private struct Connection {
    let descriptor: Int32
    let wakeReader: Int32
    let deadline: ContinuousClock.Instant

    /// Up to `limit` bytes, or nil on end of stream, error, deadline or stop.
    func read(upTo limit: Int) -> [UInt8]? {
        guard limit > 0, wait(for: Int16(POLLIN)) else { return nil }
        var buffer = [UInt8](repeating: 0, count: min(limit, 4096))
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Array(buffer[..<count])
    }

    /// Ends the sending side and reads and discards up to `limit` bytes until the client closes or time runs out.
    func drain(upTo limit: Int) {
        shutdown(descriptor, Int32(SHUT_WR))
        var discarded = 0
        while discarded < limit, let chunk = read(upTo: limit - discarded), !chunk.isEmpty {
            discarded += chunk.count
        }
    }

    /// Writes all of `bytes`; false on error, deadline or stop.
    func write(_ bytes: [UInt8]) -> Bool {
        var remaining = bytes[...]
        while !remaining.isEmpty {
            guard wait(for: Int16(POLLOUT)) else { return false }
            let sent = remaining.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard sent > 0 else { return false }
            remaining = remaining.dropFirst(sent)
        }
        return true
    }

    /// Waits until the socket is ready for `events`; false on deadline, error or a stop request.
    private func wait(for events: Int16) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptors = [
                pollfd(fd: descriptor, events: events, revents: 0),
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0, descriptors[1].revents == 0 else { return false }
            if descriptors[0].revents & events != 0 { return true }
            if descriptors[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return false }
        }
    }
}
