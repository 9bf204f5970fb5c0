import Synchronization

/// Holds the records a producer is handed while earlier ones wait for their delivery reports, and hands everything it
/// held to librdkafka at once, as one wave, when the last of those reports arrives.
///
/// Why: librdkafka's idempotent producer starts a partition's next request only while fewer than five of its
/// messages are in flight, and when the partition's next batch is ready before the answer comes, its broker thread
/// polls again at once, and again, until it does ("The producer's busy wait" in docs/performance.md). Records it has
/// not been handed cannot make a batch ready; handed over after the answer, they are batched as they would have been.
///
/// What it costs: a record that arrives while a wave is in flight waits for that wave's reports (one produce round
/// trip, or `message.timeout.ms` when a broker does not answer) before it is sent, and a wave goes only once every
/// record of the one before it was reported, whichever partition or broker it went to.
final class ProduceGate: Sendable {
    /// Hands a wave's records to librdkafka (each record refused there must be `reported()` as well).
    typealias Queueing = @Sendable () -> Void

    private struct State {
        /// Records handed to librdkafka whose reports have not arrived.
        var inFlight = 0
        /// The waves waiting for them, in the order they came: how many records each hands over, and how.
        var held: [(count: Int, queue: Queueing)] = []
    }

    private let state = Mutex(State())

    /// Hands `count` records over with `queue`: now when none is in flight, else once every record in flight was
    /// reported (on the thread that reports the last of them).
    func enter(count: Int, _ queue: @escaping Queueing) {
        let now = state.withLock { state in
            guard state.inFlight == 0 else {
                state.held.append((count, queue))
                return false
            }
            state.inFlight = count
            return true
        }
        if now { queue() }
    }

    /// One record handed over was reported, or refused: the last one in flight hands over every wave held, in order.
    func reported() {
        let released = state.withLock { state -> [(count: Int, queue: Queueing)] in
            state.inFlight -= 1
            guard state.inFlight == 0, !state.held.isEmpty else { return [] }
            let held = state.held
            state.held = []
            state.inFlight = held.reduce(0) { $0 + $1.count }
            return held
        }
        for wave in released { wave.queue() }
    }

    /// Records handed over and not reported, and records held (for tests).
    var counts: (inFlight: Int, held: Int) {
        state.withLock { state in (state.inFlight, state.held.reduce(0) { $0 + $1.count }) }
    }
}
