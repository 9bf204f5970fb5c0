import Dispatch
import Essentials
import Glibc
import Synchronization

/// `RequestDeadlines` over a libmicrohttpd server's connections: the server's callbacks say when a connection opens,
/// its request is read whole, the request ends and the connection closes; the watch shuts down the socket of each
/// connection the rules choose (libmicrohttpd then closes it as it would a client that left), when a connection
/// opens and every `checkInterval`.
///
/// A socket is shut down only under the lock that `closed(_:)` takes before libmicrohttpd closes it, so a number
/// the system gave to a newer socket is never touched; after `stop()` no socket is.
final class ConnectionWatch: Sendable {
    private struct State {
        var deadlines: RequestDeadlines
        var sockets: [Int: Int32] = [:]
        var nextID = 1
        var stopped = false
    }
    private let state: Mutex<State>
    private let origin = ContinuousClock.now
    private let checkInterval: Duration

    init(deadline: Duration, limit: Int, checkInterval: Duration = .milliseconds(200)) {
        state = Mutex(State(deadlines: RequestDeadlines(deadline: deadline, limit: limit)))
        self.checkInterval = checkInterval
    }

    /// Starts the periodic deadline checks.
    func start() {
        scheduleCheck()
    }

    /// Ends the checks; from its return on, no socket is shut down.
    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// A connection on `socket` opened; returns its id, which the server keeps with the connection.
    func opened(socket: Int32) -> Int {
        let now = origin.duration(to: .now)
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.sockets[id] = socket
            if let reclaimed = state.deadlines.opened(id, at: now) { Self.shutDown(reclaimed, in: state) }
            return id
        }
    }

    /// The request on connection `id` was read whole.
    func read(_ id: Int) {
        state.withLock { $0.deadlines.read(id) }
    }

    /// The request on connection `id` ended; the connection may read another.
    func ended(_ id: Int) {
        let now = origin.duration(to: .now)
        state.withLock { $0.deadlines.ended(id, at: now) }
    }

    /// Connection `id` closed; its socket is about to be closed.
    func closed(_ id: Int) {
        state.withLock { state in
            state.deadlines.closed(id)
            state.sockets[id] = nil
        }
    }

    private func scheduleCheck() {
        let nanoseconds = Int(clamping: checkInterval.wholeNanoseconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self, self.closeOverdue() else { return }
            self.scheduleCheck()
        }
    }

    /// Shuts down the overdue connections; `false` once stopped.
    private func closeOverdue() -> Bool {
        let now = origin.duration(to: .now)
        return state.withLock { state in
            guard !state.stopped else { return false }
            for id in state.deadlines.overdue(at: now) { Self.shutDown(id, in: state) }
            return true
        }
    }

    private static func shutDown(_ id: Int, in state: State) {
        guard !state.stopped, let socket = state.sockets[id] else { return }
        _ = Glibc.shutdown(socket, Int32(SHUT_RDWR))
    }
}
