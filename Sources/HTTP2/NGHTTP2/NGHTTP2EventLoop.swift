internal import CNGHTTP2
import Essentials
import Foundation
import Glibc
import HTTPTypes
import Sockets
import Synchronization

/// The thread of an `NGHTTP2Transport`: it takes submitted streams from a locked inbox, places them on its
/// connections within the per-origin bounds, waits in `epoll` for sockets, deadlines and news, and finishes them.
///
/// `@unchecked Sendable`: everything but `inbox`, `resolved` and `wake()` is confined to the loop's thread; the
/// first two lock, and waking writes to an `eventfd`, which any thread may do.
final class NGHTTP2EventLoop: RequestLoop, @unchecked Sendable {
    /// What the loop keeps per origin.
    private final class OriginState {
        let endpoint: OriginEndpoint
        var waiting = RingBuffer<NGHTTP2Stream>()
        var connections: [NGHTTP2Connection] = []
        var isResolving = false
        /// Whether a request asked for one stream until a 2xx (`HTTPRequest.oneStreamUntilOriginSucceeds`): nil until
        /// one did, then false until one of the origin's requests was answered 2xx, then true (as `CurlEventLoop`).
        var oneStreamSucceeded: Bool?

        init(endpoint: OriginEndpoint) { self.endpoint = endpoint }

        var inFlight: Int { connections.reduce(0) { $0 + $1.streams.count } }
        /// Connections that are or will be open for new streams (connecting or open, not draining).
        var usableConnections: Int { connections.count { !$0.isDraining } + (isResolving ? 1 : 0) }
        /// True while a connection for new streams is on its way (its addresses looked up, or connecting): the
        /// origin opens one at a time.
        var isOpeningConnection: Bool {
            isResolving || connections.contains { $0.state != .open && !$0.isDraining }
        }
        var hasOpenConnection: Bool { connections.contains { $0.state == .open && !$0.isDraining } }
    }

    let configuration: HTTP2TransportConfiguration
    private let tls: TLSContext
    let inbox = LoopInbox<NGHTTP2Stream>()
    /// Connections opened and streams sent again, for `NGHTTP2Transport.counts`.
    let counters = TransportCounters()
    /// Addresses looked up for an origin since the last turn (by the resolver threads).
    private let resolved = Mutex<[(origin: RequestOrigin, addresses: Result<[SocketAddress], HTTPError>)]>([])
    private let epoll: Int32
    private let wakeup: Int32
    /// The epoll tag of `wakeup`; connections count up from 1.
    private static let wakeupTag: UInt64 = 0

    // Confined to the loop's thread.
    private var origins: [RequestOrigin: OriginState] = [:]
    private var connections: [UInt64: NGHTTP2Connection] = [:]
    private var known: [UInt64: NGHTTP2Stream] = [:]
    private var nextTag: UInt64 = 1
    private var lastSweep: ContinuousClock.Instant
    /// When the current turn started (connections stamp their activity with it).
    private(set) var turnStarted: ContinuousClock.Instant
    /// The buffer every connection reads into (one thread, one read at a time).
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    /// When the loop last started a turn (a turn waits at most a second).
    private let turns = TurnWatch()
    /// The CPU time of the loop's thread.
    let cpu = ThreadCPUClock()

    init(configuration: HTTP2TransportConfiguration) throws(HTTPError) {
        self.configuration = configuration
        tls = try TLSContext(configuration: configuration)
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeup = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard epoll >= 0, wakeup >= 0,
            pw_epoll_control(epoll, EPOLL_CTL_ADD, wakeup, UInt32(EPOLLIN.rawValue), Self.wakeupTag) == 0
        else {
            if epoll >= 0 { close(epoll) }
            if wakeup >= 0 { close(wakeup) }
            throw HTTPError(.connect, "could not create the HTTP/2 event loop: \(String(cString: strerror(errno)))")
        }
        turnStarted = ContinuousClock.now
        lastSweep = turnStarted
    }

    deinit {
        close(epoll)
        close(wakeup)
        readBuffer.deallocate()
    }

    /// Starts the loop's thread.
    func start() {
        Thread.start(named: "http2-nghttp2") { [self] in
            Self.blockBrokenPipeSignals()
            run()
        }
    }

    /// Blocks SIGPIPE on the calling thread. OpenSSL writes to the socket with `write`, and a write to a connection
    /// the server reset raises SIGPIPE in the writing thread, whose default action ends the process; blocked, it
    /// stays pending and the write fails with `EPIPE`, which ends only that connection.
    private static func blockBrokenPipeSignals() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// How long ago the loop last started a turn; more than a few seconds means the thread is stuck or gone.
    var timeSinceLastTurn: Duration { turns.sinceLastTurn }

    /// Interrupts `epoll_wait` (a write to the `eventfd`); safe from any thread.
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeup, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: - The loop's thread

    private func run() {
        cpu.follow()
        defer { cpu.stop() }
        var tags = [UInt64](repeating: 0, count: 64)
        var events = [UInt32](repeating: 0, count: 64)
        while true {
            turnStarted = turns.turnStarts()
            let (submitted, cancelled, isStopping) = inbox.take()
            if isStopping { break }
            for stream in submitted { accept(stream) }
            for id in cancelled { drop(id, with: HTTPError(.cancelled, "request cancelled")) }
            let lookedUp = resolved.withLock { resolved in
                defer { resolved = [] }
                return resolved
            }
            for (origin, addresses) in lookedUp { connect(origin, to: addresses) }
            sweep()
            startReady()
            flushAll()
            // Input OpenSSL already holds (a turn reads at most 1 MB per connection) is read next turn without
            // waiting: the socket may have nothing more to say.
            let buffered = connections.values.filter(\.hasBufferedInput)
            let timeout: Int32 = !buffered.isEmpty ? 0 : known.isEmpty ? 1000 : 100
            let count = pw_epoll_wait(epoll, &tags, &events, Int32(tags.count), timeout)
            turnStarted = .now
            for connection in buffered { handle(connection, events: UInt32(EPOLLIN.rawValue)) }
            for index in 0..<max(0, Int(count)) {
                if tags[index] == Self.wakeupTag {
                    var value: UInt64 = 0
                    _ = read(wakeup, &value, MemoryLayout<UInt64>.size)
                } else if let connection = connections[tags[index]] {
                    handle(connection, events: events[index])
                }
            }
        }
        shutDown()
    }

    private func handle(_ connection: NGHTTP2Connection, events: UInt32) {
        do throws(HTTPError) {
            try connection.handle(events: events)
        } catch {
            fail(connection, with: error)
        }
    }

    private func shutDown() {
        for id in Array(known.keys) { drop(id, with: HTTPError(.cancelled, "the HTTP/2 client is shut down")) }
        for connection in connections.values {
            connection.terminate()
            connection.close()
        }
        connections = [:]
        origins = [:]
        inbox.close()
    }

    private func accept(_ stream: NGHTTP2Stream) {
        guard let state = originState(stream.origin) else {
            stream.finish(
                .failure(HTTPError(.invalidRequest, "the request URL's port is not a number from 1 to 65535")))
            return
        }
        known[stream.id] = stream
        if stream.request.oneStreamUntilOriginSucceeds, state.oneStreamSucceeded == nil {
            state.oneStreamSucceeded = false
        }
        if stream.request.freshConnection {
            for connection in state.connections { connection.isDraining = true }
        }
        state.waiting.append(stream)
    }

    private func originState(_ origin: RequestOrigin) -> OriginState? {
        if let state = origins[origin] { return state }
        guard let endpoint = OriginEndpoint(origin) else { return nil }
        let state = OriginState(endpoint: endpoint)
        origins[origin] = state
        return state
    }

    /// Places waiting streams on connections with room, oldest first (one with 50 ms or less left times out unsent,
    /// `PendingRequest.hasTimeLeft`), and opens a connection for an origin whose connections are all full.
    private func startReady() {
        for (origin, state) in origins where !state.waiting.isEmpty {
            let limit = state.oneStreamSucceeded == false ? 1 : Int.max
            var inFlight = state.inFlight
            var needsConnection = false
            while inFlight < limit, let stream = state.waiting.first {
                if stream.isFinished {
                    _ = state.waiting.popFirst()
                    continue
                }
                guard stream.hasTimeLeft(at: turnStarted) else {
                    _ = state.waiting.popFirst()
                    drop(stream.id, with: TransferFailure.deadlinePassed(origin))
                    continue
                }
                guard let connection = leastBusyConnection(of: state) else {
                    needsConnection = true
                    break
                }
                _ = state.waiting.popFirst()
                guard connection.submit(stream, now: turnStarted) else {
                    connection.isDraining = true  // out of stream ids, or failing: the next connection takes over
                    state.waiting.prepend(stream)
                    continue
                }
                inFlight += 1
            }
            if needsConnection && !state.isOpeningConnection
                && state.usableConnections < max(1, configuration.maxConnectionsPerHost)
            {
                resolve(origin, state)
            }
        }
    }

    private func leastBusyConnection(of state: OriginState) -> NGHTTP2Connection? {
        var best: NGHTTP2Connection?
        var bestRoom = 0
        for connection in state.connections {
            let room = connection.room(maxStreams: max(1, configuration.maxStreamsPerConnection))
            if room > bestRoom {
                best = connection
                bestRoom = room
            }
        }
        return best
    }

    /// Looks up the origin's addresses on a thread of their own; `connect` goes on when they come.
    private func resolve(_ origin: RequestOrigin, _ state: OriginState) {
        if let refusal = tls.clientCertificateError, origin.isTLS {
            failWaiting(of: state, with: refusal)
            return
        }
        state.isResolving = true
        SocketAddress.resolve(state.endpoint, origin: origin) { [self] addresses in
            resolved.withLock { $0.append((origin, addresses)) }
            wake()
        }
    }

    private func connect(_ origin: RequestOrigin, to addresses: Result<[SocketAddress], HTTPError>) {
        guard let state = origins[origin] else { return }
        state.isResolving = false
        let connection = NGHTTP2Connection(
            tag: nextTag, origin: origin, endpoint: state.endpoint, tls: tls, loop: self,
            connectDeadline: turnStarted + configuration.connectTimeout, keepAlive: configuration.tcpKeepAlive,
            now: turnStarted)
        nextTag += 1
        do throws(HTTPError) {
            try connection.connect(to: origin.connectable(addresses.get()))
        } catch {
            if !state.hasOpenConnection { failWaiting(of: state, with: error) }
            return
        }
        counters.connectionsOpened()
        connections[connection.tag] = connection
        state.connections.append(connection)
        register(connection)
    }

    /// Brings the epoll registration of `connection`'s socket in line with what it waits for.
    private func register(_ connection: NGHTTP2Connection) {
        guard let socket = connection.fileDescriptor else { return }
        let wanted = connection.wantedEvents
        guard wanted != connection.registeredEvents else { return }
        let operation = connection.registeredEvents == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        if pw_epoll_control(epoll, operation, socket, wanted, connection.tag) == 0 {
            connection.registeredEvents = wanted
        }
    }

    /// Writes every connection's ready frames and updates what each waits for.
    private func flushAll() {
        for connection in connections.values {
            if connection.wantsWrite {
                do throws(HTTPError) {
                    try connection.flush()
                } catch {
                    fail(connection, with: error)
                    continue
                }
            }
            register(connection)
        }
    }

    // MARK: - Ends

    /// Called by a connection (inside nghttp2's callbacks) when one of its streams ended.
    func stream(_ stream: NGHTTP2Stream, endedWith end: NGHTTP2Connection.StreamEnd) {
        if stream.isOversized {
            counters.oversizedResponse()
            complete(
                stream,
                with: .failure(TransferFailure.oversizedResponse(stream.origin, limit: configuration.maxResponseBytes)))
            return
        }
        switch end {
        case .completed:
            let response = stream.response
            if (200..<300).contains(response.status), let state = origins[stream.origin],
                state.oneStreamSucceeded == false
            {
                state.oneStreamSucceeded = true
            }
            complete(stream, with: .success(response))
        case .refused:
            retryOrFail(
                stream, .refused,
                HTTPError(.connectionLost, "connection to \(stream.origin) lost: the server refused the stream"))
        case .reset(let code):
            let reason = String(cString: nghttp2_http2_strerror(code))
            retryOrFail(
                stream, stream.receivedResponseBytes ? .failed : .lostBeforeResponse,
                HTTPError(.connectionLost, "connection to \(stream.origin) lost: stream reset (\(reason))"))
        }
    }

    /// Sends `stream` again, first in its origin's queue, if its `ResendAllowance` allows it after `interruption`
    /// and it has time left; otherwise finishes it with `error`.
    private func retryOrFail(
        _ stream: NGHTTP2Stream, _ interruption: ResendAllowance.Interruption, _ error: HTTPError
    ) {
        if stream.resends.allowsResend(after: interruption), stream.hasTimeLeft(at: turnStarted),
            let state = origins[stream.origin]
        {
            state.waiting.prepend(stream)
            counters.resent()
            return
        }
        complete(stream, with: .failure(error))
    }

    /// Ends `connection` with `error`: its streams are sent again or failed. A connection that failed before it
    /// opened (connect, TLS, or closed by the server during the handshake), or a TLS failure, with no other open
    /// connection to the origin also fails the streams waiting for one: opening another at once would only fail
    /// again, turn after turn, until their deadlines.
    private func fail(_ connection: NGHTTP2Connection, with error: HTTPError) {
        let failedToOpen = connection.state != .open
        connections[connection.tag] = nil
        let state = origins[connection.origin]
        state?.connections.removeAll { $0 === connection }
        let streams = connection.takeStreams()
        connection.close()
        if error == .speaksHTTP1 {
            for stream in streams { complete(stream, with: .failure(error)) }
            if let state { failWaiting(of: state, with: error) }
            return
        }
        for stream in streams {
            let interruption: ResendAllowance.Interruption =
                error.kind == .connectionLost && !stream.receivedResponseBytes ? .lostBeforeResponse : .failed
            retryOrFail(stream, interruption, error)
        }
        if let state, failedToOpen || error.kind == .connect || error.kind == .tls, !state.hasOpenConnection {
            failWaiting(of: state, with: error)
        }
    }

    private func failWaiting(of state: OriginState, with error: HTTPError) {
        for stream in state.waiting.removeAll() where !stream.isFinished { complete(stream, with: .failure(error)) }
    }

    private func complete(_ stream: NGHTTP2Stream, with result: Result<HTTPResponse, HTTPError>) {
        known[stream.id] = nil
        stream.finish(result)
    }

    /// Finishes stream `id` with `error` wherever it is (resetting it if in flight); unknown ids are ignored.
    private func drop(_ id: UInt64, with error: HTTPError) {
        guard let stream = known[id] else { return }
        stream.placement?.connection.reset(stream)
        complete(stream, with: .failure(error))  // a waiting stream is skipped when its turn comes
    }

    /// At most every 100 ms: fails streams whose deadline passed (resetting those in flight), connections still
    /// connecting at their connect deadline, and closes connections idle too long or drained.
    private func sweep() {
        let now = turnStarted
        guard now - lastSweep >= .milliseconds(100) else { return }
        lastSweep = now
        for stream in known.values where stream.deadline <= now {
            drop(stream.id, with: TransferFailure.deadlinePassed(stream.origin))
        }
        for connection in connections.values {
            if connection.state != .open {
                if connection.connectDeadline <= now {
                    fail(connection, with: HTTPError(.connect, "could not connect to \(connection.origin): timed out"))
                }
            } else if connection.streams.isEmpty
                && (connection.isDraining || now - connection.lastActivity >= configuration.idleConnectionTimeout)
            {
                connection.terminate()
                fail(connection, with: HTTPError(.connectionLost, "closed"))
            }
        }
        for (origin, state) in origins where state.connections.isEmpty && state.waiting.isEmpty && !state.isResolving {
            origins[origin] = nil
        }
    }
}
