internal import CMicroHTTPD
import Glibc
import Observability
import Sockets
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd, shared by the status endpoints and the ingress: it reads each request
/// whole (the body up to the handler's limit) and hands it to an `HTTPRequestHandler`, whose answer may come later
/// from any thread.
///
/// libmicrohttpd runs its own threads (never Swift's cooperative pool): one listening thread that polls every
/// connection with epoll and a small pool of workers, so an idle or slow client costs a connection slot and never
/// delays another client's answer. A connection idle for `connectionTimeout` is closed; its buffers (and with them
/// the request head) are bounded by `connectionMemoryLimit`; at most `connectionLimit` are held at once. While a
/// handler has not answered, its connection is suspended (`MHD_suspend_connection`): it holds no thread, and it is
/// resumed when the answer comes. With a `requestDeadline`, a `ConnectionWatch` closes the connections whose request
/// takes longer to arrive, and makes room for new connections by closing those reading longest; with
/// `connectionsPerAddress`, libmicrohttpd refuses further connections of one address.
public final class MicroHTTPServer: Sendable {
    /// The port actually bound (the configured one, or the one the system chose for port 0).
    public let port: Int
    private let daemon: Mutex<Daemon?>
    private let context: Unmanaged<ServerContext>

    /// Binds the socket and starts answering on libmicrohttpd's threads.
    public static func start(
        configuration: HTTPServerConfiguration, handler: some HTTPRequestHandler
    ) throws(HTTPServerError) -> MicroHTTPServer {
        let host = configuration.host
        let address = host.contains(":") ? "[\(host)]:\(configuration.port)" : "\(host):\(configuration.port)"
        let listener = try SocketAddress.listen(
            host: configuration.host, port: configuration.port, backlog: configuration.backlog
        ).mapError { HTTPServerError(address: address, reason: $0.reason) }.get()
        guard let port = SocketAddress.boundPort(of: listener) else {
            let reason = SocketError.errno().reason
            close(listener)
            throw HTTPServerError(address: address, reason: reason)
        }
        if configuration.tls != nil, pw_mhd_supports_tls() == 0 {
            close(listener)
            throw HTTPServerError(address: address, reason: "this libmicrohttpd was built without TLS")
        }
        let watch = configuration.requestDeadline.map {
            ConnectionWatch(deadline: $0, limit: configuration.connectionLimit)
        }
        let context = Unmanaged.passRetained(ServerContext(handler, watch: watch))
        let (timeoutSeconds, _) = configuration.connectionTimeout.components
        let connectionLimit = configuration.connectionLimit.multipliedReportingOverflow(by: watch == nil ? 1 : 2)
        // libmicrohttpd loads the certificate and key into GnuTLS while it starts; the strings need not outlive it.
        let started = withOptionalCString(configuration.tls?.certificatePEM) { certificate in
            withOptionalCString(configuration.tls?.keyPEM.revealed) { key in
                pw_mhd_start_daemon(
                    listener, UInt32(clamping: configuration.threadPoolSize), UInt32(clamping: max(1, timeoutSeconds)),
                    configuration.connectionMemoryLimit,
                    UInt32(clamping: connectionLimit.overflow ? Int.max : connectionLimit.partialValue),
                    UInt32(clamping: configuration.connectionsPerAddress ?? 0), accessHandler, completedHandler,
                    connectionHandler, context.toOpaque(), certificate, key)
            }
        }
        guard let handle = started else {
            context.release()
            close(listener)
            let reason =
                configuration.tls == nil
                ? "libmicrohttpd could not start" : "libmicrohttpd could not start TLS with this certificate and key"
            throw HTTPServerError(address: address, reason: reason)
        }
        watch?.start()
        return MicroHTTPServer(port: port, handle: handle, context: context)
    }

    private init(port: Int, handle: OpaquePointer, context: Unmanaged<ServerContext>) {
        self.port = port
        self.daemon = Mutex(Daemon(handle: handle))
        self.context = context
    }

    /// Stops accepting, waits up to `answerBudget` for the answers still awaited (libmicrohttpd cannot stop with a
    /// connection suspended), closes every connection, joins libmicrohttpd's threads and closes the socket.
    /// Safe to call more than once.
    public func stop(answerBudget: Duration = .seconds(10)) {
        guard let daemon = daemon.withLock({ $0.take() }) else { return }
        // Quiescing hands the listening socket back: it is closed here, after the daemon stopped.
        let listener = MHD_quiesce_daemon(daemon.handle)
        let counts = context.takeUnretainedValue()
        counts.watch?.stop()
        let deadline = ContinuousClock.now + answerBudget
        while counts.suspended.load(ordering: .acquiring) > 0, ContinuousClock.now < deadline {
            usleep(5_000)
        }
        MHD_stop_daemon(daemon.handle)
        if listener >= 0 { close(listener) }
        context.release()
    }

    deinit {
        stop()
    }
}

/// `body` with `text` as a C string, or with `nil`.
private func withOptionalCString<Result>(
    _ text: String?, _ body: (UnsafePointer<CChar>?) -> Result
) -> Result {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

/// The running daemon; only `stop()` touches it, once.
private struct Daemon: @unchecked Sendable {
    // Safe: the handle is used only to stop the daemon, under the server's lock, exactly once.
    let handle: OpaquePointer
}

/// What libmicrohttpd's callbacks reach through their context pointer: the handler, the count of suspended
/// connections and the connection watch.
private final class ServerContext: Sendable {
    let handler: any HTTPRequestHandler
    let suspended = Atomic<Int>(0)
    let watch: ConnectionWatch?
    init(_ handler: any HTTPRequestHandler, watch: ConnectionWatch?) {
        self.handler = handler
        self.watch = watch
    }
}

/// One request in progress, kept in libmicrohttpd's per-request pointer from its first callback to its completion.
/// Its head and body are touched only by the libmicrohttpd thread serving the connection; the answer, which may
/// come from another thread, goes through `reply`.
private final class PendingRequest {
    var request: HTTPServerRequest
    var dispatched = false
    let reply = Reply()
    init(_ request: HTTPServerRequest) { self.request = request }
}

/// A connection handle that another thread may resume.
private struct ConnectionHandle: @unchecked Sendable {
    // Safe: the only call made through it from another thread is MHD_resume_connection, which libmicrohttpd allows
    // from any thread when the daemon has MHD_ALLOW_SUSPEND_RESUME; the connection lives until it is resumed.
    let pointer: OpaquePointer
}

/// The answer to one request: awaited, awaited with the connection suspended, or ready to be queued.
private final class Reply: Sendable {
    private enum State {
        case awaiting
        case suspended(ConnectionHandle)
        case ready(HTTPServerResponse)
        case sent
    }
    private let state = Mutex(State.awaiting)

    /// Stores `response`; resumes the connection when it was suspended waiting for it. Later calls are ignored.
    func deliver(_ response: HTTPServerResponse, counts: ServerContext) {
        state.withLock { state in
            switch state {
            case .awaiting:
                state = .ready(response)
            case .suspended(let connection):
                state = .ready(response)
                counts.suspended.subtract(1, ordering: .releasing)
                MHD_resume_connection(connection.pointer)
            case .ready, .sent:
                break
            }
        }
    }

    /// The response when it is ready (it is then marked sent); otherwise suspends `connection` until `deliver`.
    func takeOrSuspend(_ connection: OpaquePointer, counts: ServerContext) -> HTTPServerResponse? {
        state.withLock { state in
            switch state {
            case .ready(let response):
                state = .sent
                return response
            case .awaiting:
                counts.suspended.add(1, ordering: .relaxed)
                MHD_suspend_connection(connection)
                state = .suspended(ConnectionHandle(pointer: connection))
                return nil
            case .suspended, .sent:
                return nil
            }
        }
    }
}

/// libmicrohttpd's access handler: called once when the head is read, once per piece of body, and once more when
/// the body is complete (and again after each resume); answers on the last of these.
private let accessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, uploadData, uploadDataSize, requestContext in
    guard let context, let connection, let url, let method, let requestContext else { return .NO }
    let server = Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue()
    let limit = server.handler.maximumBodyBytes

    guard let stored = requestContext.pointee else {
        let pending = PendingRequest(head(connection, method: String(cString: method), path: String(cString: url)))
        if let length = pending.request.headers["content-length"].flatMap({ Int($0) }), length > limit {
            pending.request.bodyTooLarge = true
        }
        requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
        // A body announced over the limit is never read: the answer goes out now, and the connection then closes.
        return pending.request.bodyTooLarge ? answer(pending, connection, server) : .YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(stored).takeUnretainedValue()
    if let uploadDataSize, uploadDataSize.pointee > 0 {
        let size = uploadDataSize.pointee
        if !pending.request.bodyTooLarge, let uploadData {
            if size > limit - pending.request.body.count {
                pending.request.bodyTooLarge = true
                pending.request.body = []
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
                    pending.request.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
                }
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }
    return answer(pending, connection, server)
}

/// Hands the complete request to the handler once, then queues its answer, or suspends the connection until it.
private func answer(_ pending: PendingRequest, _ connection: OpaquePointer, _ server: ServerContext) -> MHD_Result {
    if !pending.dispatched {
        pending.dispatched = true
        server.watch?.read(watchedID(connection))
        let reply = pending.reply
        server.handler.handle(pending.request) { reply.deliver($0, counts: server) }
    }
    guard let response = pending.reply.takeOrSuspend(connection, counts: server) else { return .YES }
    return queue(response, on: connection)
}

/// Queues `response` with `Content-Length` and `Cache-Control: no-store`.
private func queue(_ response: HTTPServerResponse, on connection: OpaquePointer) -> MHD_Result {
    guard
        let reply = response.body.withUnsafeBytes({ pw_mhd_response_copying($0.count, $0.baseAddress) })
    else { return .NO }
    defer { MHD_destroy_response(reply) }
    let headers = ["Content-Type": response.contentType, "Cache-Control": "no-store"]
        .merging(response.headers) { _, extra in extra }
    for (name, value) in headers { _ = MHD_add_response_header(reply, name, value) }
    return MHD_queue_response(connection, UInt32(response.status), reply)
}

/// The method, path, header fields, query parameters and client address of a request whose head was just read.
private func head(_ connection: OpaquePointer, method: String, path: String) -> HTTPServerRequest {
    var request = HTTPServerRequest(method: method, path: path)
    withUnsafeMutablePointer(to: &request.headers) { headers in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, collectField, headers)
    }
    withUnsafeMutablePointer(to: &request.query) { query in
        _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectParameter, query)
    }
    var address = [UInt8](repeating: 0, count: 16)
    let length = address.withUnsafeMutableBufferPointer { pw_mhd_client_address(connection, $0.baseAddress) }
    request.clientAddress = Array(address.prefix(length))
    return request
}

/// Adds one header field, its name lower-cased, to the dictionary at `context`.
private let collectField: MHD_KeyValueIterator = { context, _, key, value in
    guard let context, let key else { return .YES }
    let fields = context.assumingMemoryBound(to: [String: String].self)
    fields.pointee[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
    return .YES
}

/// Adds one query parameter to the dictionary at `context`.
private let collectParameter: MHD_KeyValueIterator = { context, _, key, value in
    guard let context, let key else { return .YES }
    let parameters = context.assumingMemoryBound(to: [String: String].self)
    parameters.pointee[String(cString: key)] = value.map { String(cString: $0) } ?? ""
    return .YES
}

/// libmicrohttpd's completion callback: the request is over (answered, or its connection gone); releases it.
private let completedHandler: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
    if let context, let connection {
        Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue().watch?.ended(watchedID(connection))
    }
    guard let requestContext, let stored = requestContext.pointee else { return }
    Unmanaged<PendingRequest>.fromOpaque(stored).release()
    requestContext.pointee = nil
}

/// libmicrohttpd's connection callback: tells the watch that a connection opened (keeping its id as the
/// connection's socket context) or closed.
private let connectionHandler: MHD_NotifyConnectionCallback = { context, connection, socketContext, event in
    guard let context, let connection, let socketContext,
        let watch = Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue().watch
    else { return }
    if pw_mhd_connection_opened(event) != 0 {
        socketContext.pointee = UnsafeMutableRawPointer(
            bitPattern: watch.opened(socket: pw_mhd_connection_socket(connection)))
    } else if let id = socketContext.pointee {
        watch.closed(Int(bitPattern: id))
    }
}

/// The watch's id of `connection` (0 when it has none).
private func watchedID(_ connection: OpaquePointer) -> Int {
    Int(bitPattern: pw_mhd_socket_context(connection))
}
