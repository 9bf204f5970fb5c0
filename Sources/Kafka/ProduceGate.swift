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
/// trip) before it is sent, and a wave goes only once every record of the one before it was reported, whichever
/// partition or broker it went to. So that one slow broker does not hold the records bound for the others, a wave in
/// flight for longer than `maxHold` opens the gate (`passIfStuck`): what it held goes at once, and so does every wave
/// after it, until nothing is in flight.
final class ProduceGate: Sendable {
    /// Hands a wave's records to librdkafka (each record refused there must be `reported()` as well).
    typealias Queueing = @Sendable () -> Void

    private struct State {
        /// Records handed to librdkafka whose reports have not arrived.
        var inFlight = 0
        /// The waves waiting for them, in the order they came: how many records each hands over, and how.
        var held: [(count: Int, queue: Queueing)] = []
        /// When the records in flight began to be: when a wave was handed over with none before it.
        var since = ContinuousClock.Instant.now
        /// The gate is open: a wave stayed in flight longer than `maxHold`; every wave goes at once until none is.
        var isOpen = false
        /// How many times it opened.
        var openings = 0
    }

    private let state = Mutex(State())
    /// How long the waves in flight may hold the next ones back.
    let maxHold: Duration

    /// A gate whose waves in flight hold the next ones back for at most `maxHold` (`passIfStuck`). A produce round
    /// trip takes milliseconds, unless a broker is slow or gone.
    init(maxHold: Duration = .milliseconds(100)) {
        self.maxHold = maxHold
    }

    /// Hands `count` records over with `queue`: now when none is in flight (or the gate is open), else once every
    /// record in flight was reported (on the thread that reports the last of them).
    func enter(count: Int, _ queue: @escaping Queueing) {
        let now = state.withLock { state in
            if state.inFlight == 0 {
                state.since = .now
            } else if !state.isOpen {
                state.held.append((count, queue))
                return false
            }
            state.inFlight += count
            return true
        }
        if now { queue() }
    }

    /// One record handed over was reported, or refused: the last one in flight closes the gate and hands over every
    /// wave held, in order.
    func reported() {
        let released = state.withLock { state -> [(count: Int, queue: Queueing)] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            state.isOpen = false
            return Self.takeHeld(&state)
        }
        for wave in released { wave.queue() }
    }

    /// Opens the gate when waves are held behind records in flight for `maxHold` or longer by `now` (a broker slow to
    /// answer): hands them over at once, as every wave after them, until nothing is in flight. Called by the
    /// producer's poll thread after each poll.
    func passIfStuck(now: ContinuousClock.Instant = .now) {
        let released = state.withLock { state -> [(count: Int, queue: Queueing)] in
            guard !state.isOpen, !state.held.isEmpty, now - state.since >= maxHold else { return [] }
            state.isOpen = true
            state.openings += 1
            let inFlight = state.inFlight
            let held = Self.takeHeld(&state)
            state.inFlight += inFlight
            return held
        }
        for wave in released { wave.queue() }
    }

    /// Takes every held wave out, counted in flight from now.
    private static func takeHeld(_ state: inout State) -> [(count: Int, queue: Queueing)] {
        let held = state.held
        state.held = []
        state.inFlight = held.reduce(0) { $0 + $1.count }
        state.since = .now
        return held
    }

    /// Records handed over and not reported, and records held (for tests).
    var counts: (inFlight: Int, held: Int) {
        state.withLock { state in (state.inFlight, state.held.reduce(0) { $0 + $1.count }) }
    }

    /// How many times the gate opened for a wave in flight too long (`passIfStuck`).
    var openings: Int { state.withLock { $0.openings } }
}
