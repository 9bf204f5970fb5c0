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
/// partition or broker it went to. So that one slow broker does not hold the records bound for the others until it
/// answers, the waves held behind records in flight for `maxHold` go then (`releaseIfStuck`), without waiting for
/// the rest of their reports; the waves after them are held again, each for at most as long. Waves are handed over in
/// the order they came, one releasing thread at a time: a room's records keep their order in its partition.
final class ProduceGate: Sendable {
    /// Hands a wave's records to librdkafka (each record refused there must be `reported()` as well).
    typealias Queueing = @Sendable () -> Void

    private struct State {
        /// Records handed to librdkafka whose reports have not arrived.
        var inFlight = 0
        /// The waves waiting for them, in the order they came: how many records each hands over, and how.
        var held: [(count: Int, queue: Queueing)] = []
        /// When the last wave was handed over.
        var since = ContinuousClock.Instant.now
        /// How many times held waves went before every report in flight arrived (`releaseIfStuck`).
        var earlyReleases = 0
    }

    private let state = Mutex(State())
    /// How long records in flight may hold the next waves back.
    let maxHold: Duration

    /// A gate whose records in flight hold the next waves back for at most `maxHold` (`releaseIfStuck`). A produce
    /// round trip takes milliseconds, unless a broker is slow or gone.
    init(maxHold: Duration = .milliseconds(100)) {
        self.maxHold = maxHold
    }

    /// Hands `count` records over with `queue`: now when none is in flight, else once every record in flight was
    /// reported (on the thread that reports the last of them), or `maxHold` after the last wave went.
    func enter(count: Int, _ queue: @escaping Queueing) {
        let now = state.withLock { state in
            guard state.inFlight == 0 else {
                state.held.append((count, queue))
                return false
            }
            state.inFlight = count
            state.since = .now
            return true
        }
        if now { queue() }
    }

    /// One record handed over was reported, or refused: the last one in flight hands over every wave held, in order.
    func reported() {
        let released = state.withLock { state -> [(count: Int, queue: Queueing)] in
            state.inFlight -= 1
            guard state.inFlight == 0, !state.held.isEmpty else { return [] }
            return Self.takeHeld(&state)
        }
        for wave in released { wave.queue() }
    }

    /// Hands the held waves over, in order, when the last wave went `maxHold` or longer before `now` and records are
    /// still in flight (a broker slow to answer): they count in flight beside those. Called by the producer's poll
    /// thread after each poll, the thread that serves the reports.
    func releaseIfStuck(now: ContinuousClock.Instant = .now) {
        let released = state.withLock { state -> [(count: Int, queue: Queueing)] in
            guard !state.held.isEmpty, now - state.since >= maxHold else { return [] }
            state.earlyReleases += 1
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

    /// How many times held waves went before every report in flight arrived (`releaseIfStuck`).
    var earlyReleases: Int { state.withLock { $0.earlyReleases } }
}
