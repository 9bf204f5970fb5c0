internal import CNGHTTP2
import Glibc
import HTTPTypes
import Sockets

/// One TLS connection of the nghttp2 transport: a non-blocking socket, its OpenSSL `SSL` and its nghttp2 client
/// session, driven by the transport's loop thread (which owns it; every method runs there).
///
/// Frames are written in batches: each loop turn, `flush()` gathers every frame nghttp2 has ready into one buffer
/// and writes it with one `SSL_write`. Received bytes go from `SSL_read` (with read-ahead) into nghttp2, whose
/// callbacks fill the streams' responses and report each stream's end to the loop.
final class NGHTTP2Connection {
    enum State: Equatable {
        case connecting, handshaking, open, closed
    }

    /// How a stream on this connection ended, as the loop needs to know it.
    enum StreamEnd: Equatable {
        /// Closed without error: the response is complete.
        case completed
        /// Refused before the server processed it (REFUSED_STREAM, above a GOAWAY's last stream, or never sent).
        case refused
        /// Reset by the server or by nghttp2 with this HTTP/2 error code.
        case reset(UInt32)
    }

    /// The tag of this connection's socket in the loop's epoll set.
    let tag: UInt64
    let origin: RequestOrigin
    let endpoint: OriginEndpoint
    /// When the TCP connect and TLS handshake must have finished.
    let connectDeadline: ContinuousClock.Instant
    /// Idle time before TCP keepalive probes start, and the interval between them.
    private let keepAlive: Duration
    private(set) var state = State.connecting
    /// True when the connection takes no new stream: the server sent GOAWAY, or a fresh connection replaces it.
    var isDraining = false
    /// The last time a stream started or ended here.
    private(set) var lastActivity: ContinuousClock.Instant
    /// The streams in flight, by HTTP/2 stream id.
    private(set) var streams: [Int32: NGHTTP2Stream] = [:]
    /// The events the loop registered for the socket (`EPOLLIN`, `EPOLLOUT`).
    var registeredEvents: UInt32 = 0
    /// True once any byte arrived after the TLS handshake (the server accepted the client's side of it).
    private(set) var receivedAfterHandshake = false
    /// True once the server's first SETTINGS frame arrived.
    private var receivedSettings = false

    private unowned let loop: NGHTTP2EventLoop
    private let tls: TLSContext
    private var addresses: ArraySlice<SocketAddress> = []
    private var socket: Int32 = -1
    private var ssl: OpaquePointer?
    private var session: OpaquePointer?
    /// Frames gathered by `flush()` and not yet taken by `SSL_write`.
    private var output: [UInt8] = []
    private var outputStart = 0
    /// True when the handshake or a write waits for the socket to become writable.
    private var waitsForWritable = false

    init(
        tag: UInt64, origin: RequestOrigin, endpoint: OriginEndpoint, tls: TLSContext, loop: NGHTTP2EventLoop,
        connectDeadline: ContinuousClock.Instant, keepAlive: Duration, now: ContinuousClock.Instant
    ) {
        self.tag = tag
        self.origin = origin
        self.endpoint = endpoint
        self.tls = tls
        self.loop = loop
        self.connectDeadline = connectDeadline
        self.keepAlive = keepAlive
        lastActivity = now
    }

    deinit { release() }

    /// The socket, once a connect was started (the loop registers it).
    var fileDescriptor: Int32? { socket >= 0 ? socket : nil }

    /// The events the socket must be watched for now.
    var wantedEvents: UInt32 {
        switch state {
        case .connecting: UInt32(EPOLLOUT.rawValue)
        case .closed: 0
        case .handshaking, .open:
            UInt32(EPOLLIN.rawValue) | (waitsForWritable || hasPendingOutput ? UInt32(EPOLLOUT.rawValue) : 0)
        }
    }

    /// Streams this connection may still take now: none unless open and not draining; one until the server's
    /// SETTINGS arrived (a server may allow fewer streams than nghttp2 assumes before, and refuse the rest); then
    /// the client's per-connection bound and the server's `SETTINGS_MAX_CONCURRENT_STREAMS`, whichever is lower.
    func room(maxStreams: Int) -> Int {
        guard state == .open, !isDraining, let session else { return 0 }
        guard receivedSettings else { return streams.isEmpty ? 1 : 0 }
        let serverLimit = Int(
            nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return max(0, min(maxStreams, serverLimit) - streams.count)
    }

    // MARK: - Connecting

    /// Starts connecting to the first of `addresses` (the next ones are tried if it fails); throws `.connect` if
    /// no socket could even be started.
    func connect(to addresses: [SocketAddress]) throws(HTTPError) {
        self.addresses = addresses[...]
        try connectToNextAddress(lastError: nil)
    }

    /// Starts a non-blocking connect to the next address that takes one; throws `.connect` with the last failure
    /// (`lastError`, or that of the addresses tried now) when none is left.
    private func connectToNextAddress(lastError: Int32?) throws(HTTPError) {
        closeSocket()
        var lastError = lastError
        while let address = addresses.popFirst() {
            let descriptor = pw_socket_nonblocking_stream(address.family)
            guard descriptor >= 0 else {
                lastError = errno
                continue
            }
            configure(descriptor)
            let started = address.bytes.withUnsafeBytes { bytes in
                Glibc.connect(
                    descriptor, bytes.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
            }
            if started == 0 || errno == EINPROGRESS {
                socket = descriptor
                return
            }
            lastError = errno
            Glibc.close(descriptor)
        }
        throw connectError(lastError ?? ECONNREFUSED)
    }

    /// No Nagle delay (frames are already batched), and keepalive probes first after `keepAlive`, then every
    /// `keepAlive`: on every socket, whichever address it is for.
    private func configure(_ descriptor: Int32) {
        let seconds = Int32(clamping: max(1, keepAlive.components.seconds))
        setOption(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        setOption(descriptor, SOL_SOCKET, SO_KEEPALIVE, 1)
        setOption(descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE, seconds)
        setOption(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, seconds)
    }

    private func setOption(_ descriptor: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    private func connectError(_ code: Int32) -> HTTPError {
        HTTPError(.connect, "could not connect to \(origin): \(String(cString: strerror(code)))")
    }

    // MARK: - Socket events

    /// Handles readiness of the socket (`events` from epoll); throws the error that ends the connection.
    func handle(events: UInt32) throws(HTTPError) {
        switch state {
        case .connecting:
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length)
            guard failure == 0 else {
                try connectToNextAddress(lastError: failure)
                return
            }
            try startTLS()
        case .handshaking:
            try handshake()
        case .open:
            if events & UInt32(EPOLLOUT.rawValue) != 0 { try flush() }
            try receive()
        case .closed:
            return
        }
    }

    private func startTLS() throws(HTTPError) {
        if let refusal = tls.clientCertificateError { throw refusal }
        guard let ssl = SSL_new(tls.raw) else { throw HTTPError(.tls, "OpenSSL could not start TLS with \(origin)") }
        self.ssl = ssl
        SSL_set_fd(ssl, socket)
        SSL_set_connect_state(ssl)
        if endpoint.isIPAddress {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), endpoint.host)
        } else {
            _ = pw_ssl_set_server_name(ssl, endpoint.host)
            SSL_set1_host(ssl, endpoint.host)
        }
        state = .handshaking
        try handshake()
    }

    private func handshake() throws(HTTPError) {
        guard let ssl else { return }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            if try !waitsForSocket(after: result) { throw tlsError(detail: Self.openSSLErrorText()) }
            return
        }
        waitsForWritable = false
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard let protocolName, length == 2, protocolName[0] == UInt8(ascii: "h"), protocolName[1] == UInt8(ascii: "2")
        else {
            throw HTTPError.speaksHTTP1
        }
        try startSession()
    }

    /// Sorts out a TLS call's failed `result`: true if it waits for the socket (readable or writable); false if
    /// it failed; throws `.connectionLost` if the peer closed the connection.
    private func waitsForSocket(after result: Int32) throws(HTTPError) -> Bool {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            waitsForWritable = false
            return true
        case SSL_ERROR_WANT_WRITE:
            waitsForWritable = true
            return true
        case SSL_ERROR_ZERO_RETURN:
            throw lost("closed by the server")
        case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
            throw lost(errno == 0 ? "closed by the server" : String(cString: strerror(errno)))
        default:
            return false
        }
    }

    private func startSession() throws(HTTPError) {
        var session: OpaquePointer?
        guard
            nghttp2_session_client_new(&session, sessionCallbacks, Unmanaged.passUnretained(self).toOpaque()) == 0,
            let session
        else {
            throw lost("nghttp2 could not start a session")
        }
        self.session = session
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: Self.streamWindow),
        ]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        _ = nghttp2_session_set_local_window_size(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(Self.connectionWindow))
        state = .open
    }

    /// The receive window of each stream and of the whole connection.
    private static let streamWindow: UInt32 = 1 << 20
    private static let connectionWindow: UInt32 = 16 << 20

    // MARK: - Streams

    /// Submits `stream`'s request as a new HTTP/2 stream (sent with the turn's `flush()`); false if nghttp2
    /// refused it (the connection is out of stream ids or failed).
    func submit(_ stream: NGHTTP2Stream, now: ContinuousClock.Instant) -> Bool {
        guard let session else { return false }
        let method = stream.method
        let streamID = RequestHeaderBlock(stream.request, method: method, endpoint: endpoint, isTLS: origin.isTLS)
            .withFields { fields in
                if case .withBody = method, !stream.request.body.isEmpty {
                    var provider = nghttp2_data_provider(
                        source: nghttp2_data_source(ptr: nil), read_callback: readRequestBody)
                    return nghttp2_submit_request(session, nil, fields.baseAddress, fields.count, &provider, nil)
                }
                return nghttp2_submit_request(session, nil, fields.baseAddress, fields.count, nil, nil)
            }
        guard streamID > 0 else { return false }
        streams[streamID] = stream
        stream.placed(
            on: self, as: streamID, responseLimit: loop.configuration.maxResponseBytes,
            keptHeaders: loop.configuration.keptResponseHeaders)
        lastActivity = now
        return true
    }

    /// Resets `stream` (RST_STREAM CANCEL, sent with the turn's frames) and forgets it: it no longer counts here.
    func reset(_ stream: NGHTTP2Stream) {
        guard let (connection, streamID) = stream.placement, connection === self else { return }
        streams[streamID] = nil
        stream.unplaced()
        if let session {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
        }
    }

    /// Hands every stream still in flight over (to be failed or sent again) and forgets them.
    func takeStreams() -> [NGHTTP2Stream] {
        let taken = Array(streams.values)
        streams = [:]
        for stream in taken { stream.unplaced() }
        return taken
    }

    /// Ends the stream `streamID` (nghttp2 closed it, or never sent it) and tells the loop.
    fileprivate func streamEnded(_ streamID: Int32, _ end: StreamEnd) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        stream.unplaced()
        lastActivity = loop.turnStarted
        loop.stream(stream, endedWith: end)
    }

    fileprivate func stream(_ streamID: Int32) -> NGHTTP2Stream? { streams[streamID] }

    fileprivate func received(_ frame: nghttp2_frame_hd) {
        switch UInt32(frame.type) {
        case NGHTTP2_GOAWAY.rawValue: isDraining = true
        case NGHTTP2_SETTINGS.rawValue: receivedSettings = true
        default: break
        }
    }

    // MARK: - Reading and writing

    /// Feeds what is readable (up to 1 MB a turn) to nghttp2, whose callbacks end streams; throws the error that
    /// ends the connection.
    private func receive() throws(HTTPError) {
        guard let ssl, let session else { return }
        let buffer = loop.readBuffer
        // At most 16 buffers (1 MB) per turn: a server that never stops sending must not starve the other
        // connections; what OpenSSL then holds is read next turn (`hasBufferedInput`).
        hasBufferedInput = true
        for _ in 0..<16 {
            ERR_clear_error()
            let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
            guard count > 0 else {
                if try waitsForSocket(after: count) {
                    hasBufferedInput = false
                    break
                }
                let detail = Self.openSSLErrorText()
                // TLS 1.3: a server refusing the client's certificate says so only after the client finished.
                if !receivedAfterHandshake, TransferFailure.tlsAlert(in: detail) != nil {
                    throw tlsError(detail: detail)
                }
                throw lost("TLS failed: \(detail)")
            }
            receivedAfterHandshake = true
            let used = nghttp2_session_mem_recv(
                session, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int(count))
            guard used >= 0 else { throw lost(String(cString: nghttp2_strerror(Int32(used)))) }
        }
        try checkSessionGoesOn(session)
    }

    private var hasPendingOutput: Bool { outputStart < output.count }

    /// True when the last read stopped at its per-turn bound rather than at OpenSSL's want of more bytes from the
    /// socket: what OpenSSL holds may be whole records, which no socket event announces. (`SSL_has_pending` is no
    /// guide: with read-ahead it is also true for the start of a record whose rest is still on its way, and a loop
    /// that would not wait for that rest spins until it comes.)
    private(set) var hasBufferedInput = false

    /// Writes every frame nghttp2 has ready, gathered into one buffer, with as few `SSL_write`s as the socket
    /// takes; what it does not take now waits for the socket to become writable.
    func flush() throws(HTTPError) {
        guard state == .open, let ssl, let session else { return }
        if !hasPendingOutput {
            output.removeAll(keepingCapacity: true)
            outputStart = 0
            while true {
                var frames: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &frames)
                guard count >= 0 else { throw lost(String(cString: nghttp2_strerror(Int32(count)))) }
                guard count > 0, let frames else { break }
                output.append(contentsOf: UnsafeBufferPointer(start: frames, count: count))
            }
        }
        while hasPendingOutput {
            ERR_clear_error()
            let written = output.withUnsafeBytes { bytes in
                let pending = UnsafeRawBufferPointer(rebasing: bytes[outputStart...])
                return SSL_write(ssl, pending.baseAddress, Int32(clamping: pending.count))
            }
            guard written > 0 else {
                if try waitsForSocket(after: written) { return }
                throw lost("TLS failed: \(Self.openSSLErrorText())")
            }
            outputStart += Int(written)
        }
        waitsForWritable = false
        try checkSessionGoesOn(session)
    }

    /// Throws once nghttp2 wants neither to read nor to write: the session ended (after GOAWAY both ways, or
    /// after nghttp2 gave up on a server breaking the protocol and sent its GOAWAY).
    private func checkSessionGoesOn(_ session: OpaquePointer) throws(HTTPError) {
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            throw lost("the HTTP/2 session ended")
        }
    }

    /// True when nghttp2 has frames to send or some wait for the socket.
    var wantsWrite: Bool {
        guard state == .open, let session else { return false }
        return hasPendingOutput || nghttp2_session_want_write(session) != 0
    }

    // MARK: - Closing

    /// Sends GOAWAY (best effort, with whatever frames are ready) before `close()`.
    func terminate() {
        guard state == .open, let session else { return }
        _ = nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
        try? flush()
    }

    /// Closes the socket and frees the session; the streams must have been taken first.
    func close() {
        state = .closed
        release()
    }

    private func release() {
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        closeSocket()
    }

    /// Closes the socket (which also takes it out of the loop's epoll set) and forgets its registration.
    private func closeSocket() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
        registeredEvents = 0
    }

    // MARK: - Errors

    private func lost(_ reason: String) -> HTTPError {
        HTTPError(.connectionLost, "connection to \(origin) lost: \(reason)")
    }

    private func tlsError(detail: String) -> HTTPError {
        TransferFailure.tlsError(
            origin: origin, reason: "OpenSSL: \(detail.isEmpty ? "handshake failed" : detail)",
            certificateVerifyResult: ssl.map { Int(SSL_get_verify_result($0)) } ?? 0, detail: detail,
            presentedClientCertificate: tls.presentsClientCertificate)
    }

    /// OpenSSL's text for the oldest error in the thread's queue (e.g. "…:tlsv1 alert unknown ca"); empty if none.
    private static func openSSLErrorText() -> String {
        let code = ERR_peek_error()
        guard code != 0 else { return "" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension HTTPError {
    /// Thrown by a connection whose server chose HTTP/1.1 in ALPN: the loop sends its origin's requests through
    /// the libcurl client instead.
    static let speaksHTTP1 = HTTPError(.connect, "the server does not speak HTTP/2")
}

// MARK: - nghttp2's callbacks (user data: the unretained connection)

/// The callbacks every session of the transport shares; made once.
nonisolated(unsafe) private let sessionCallbacks: OpaquePointer = {
    var callbacks: OpaquePointer?
    guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
        fatalError("nghttp2 could not allocate its callbacks (out of memory)")
    }
    nghttp2_session_callbacks_set_on_header_callback(callbacks, receiveHeader)
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, receiveData)
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, closeStream)
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, receiveFrame)
    nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, dropUnsentFrame)
    return callbacks
}()

private func connection(_ context: UnsafeMutableRawPointer?) -> NGHTTP2Connection? {
    context.map { Unmanaged<NGHTTP2Connection>.fromOpaque($0).takeUnretainedValue() }
}

private let receiveHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, context in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
        let stream = connection(context)?.stream(frame.pointee.hd.stream_id)
    else { return 0 }
    stream.receive(
        name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength))
    if stream.isOversized { return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue }  // resets the stream
    return 0
}

/// A piece of a response body; the piece that takes the response past its bound resets the stream (the server
/// would otherwise go on sending until the deadline), which then ends as oversized.
private let receiveData: nghttp2_on_data_chunk_recv_callback = { session, _, streamID, data, length, context in
    guard let stream = connection(context)?.stream(streamID), !stream.isOversized else { return 0 }
    stream.receive(body: UnsafeBufferPointer(start: data, count: length))
    if stream.isOversized {
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }
    return 0
}

private let closeStream: nghttp2_on_stream_close_callback = { _, streamID, errorCode, context in
    let end: NGHTTP2Connection.StreamEnd =
        switch errorCode {
        case NGHTTP2_NO_ERROR.rawValue: .completed
        case NGHTTP2_REFUSED_STREAM.rawValue: .refused
        default: .reset(errorCode)
        }
    connection(context)?.streamEnded(streamID, end)
    return 0
}

private let receiveFrame: nghttp2_on_frame_recv_callback = { _, frame, context in
    if let frame { connection(context)?.received(frame.pointee.hd) }
    return 0
}

/// A request whose HEADERS could not be sent (after GOAWAY, or the session closing) never reached the server.
private let dropUnsentFrame: nghttp2_on_frame_not_send_callback = { _, frame, _, context in
    if let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
        connection(context)?.streamEnded(frame.pointee.hd.stream_id, .refused)
    }
    return 0
}

/// nghttp2's data source for a request body: as much of the stream's body as fits, from where it left off.
private let readRequestBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, context in
    guard let buffer, let flags, let stream = connection(context)?.stream(streamID) else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    let count = stream.request.body.withUnsafeBytes { body in
        let pending = UnsafeRawBufferPointer(rebasing: body[stream.bodyOffset...].prefix(length))
        if let source = pending.baseAddress {
            UnsafeMutableRawPointer(buffer).copyMemory(from: source, byteCount: pending.count)
        }
        return pending.count
    }
    stream.bodyOffset += count
    if stream.bodyOffset == stream.request.body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return count
}
