import PushPipeline

/// `--rate N`: when each send may start so that at most N start per second, evenly spaced (no bursts). Pure.
///
/// Each send gets the next free slot, `1/N` s after the previous one; a slot in the past (the replay was
/// slower than its rate for a while) is moved to now, so no burst makes up for lost time.
public struct SendPacing: Sendable, Equatable {
    /// The gap between two sends, in microseconds.
    public let intervalMicros: Int64
    private var nextSlotMicros: Int64?

    /// Pacing at `sendsPerSecond` (at least 1, at most 1,000,000).
    public init(sendsPerSecond: Int) {
        intervalMicros = 1_000_000 / Int64(min(max(sendsPerSecond, 1), 1_000_000))
    }

    /// The slot of the next send, given the time now; returns how long to wait for it (0 when it is now).
    public mutating func reserve(nowMicros: Int64) -> Int64 {
        let slot = max(nextSlotMicros ?? nowMicros, nowMicros)
        nextSlotMicros = slot + intervalMicros
        return slot - nowMicros
    }
}
