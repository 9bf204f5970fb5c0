public import Foundation
import Glibc

/// Time for code that must be testable without waiting: wall-clock readings (record times, token lifetimes,
/// Retry-After dates) and a sleep for delays. Tests pass a virtual clock so that nothing depends on the speed
/// of the wall clock.
public protocol WallClock: Sendable {
    /// Now, in microseconds since the Unix epoch.
    func nowMicros() -> Int64
    /// Suspends for `duration`; throws when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

extension WallClock {
    /// Now, in milliseconds since the Unix epoch.
    public func nowMillis() -> Int64 { nowMicros() / 1000 }

    /// Now, as a `Date`.
    public func now() -> Date { Date(timeIntervalSince1970: Double(nowMicros()) / 1e6) }
}

/// The real clock: the system's real-time clock and `Task.sleep`.
public struct SystemWallClock: WallClock {
    public init() {}

    public func nowMicros() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
