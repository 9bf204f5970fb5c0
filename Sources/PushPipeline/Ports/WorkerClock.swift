#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Time for the pipeline: wall-clock readings for records and a sleep for delays.
/// Tests pass a virtual clock so that nothing depends on wall-clock speed.
public protocol WorkerClock: Sendable {
    /// Now, in microseconds since the Unix epoch.
    func nowMicros() -> Int64
    /// Suspends for `duration`; throws when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

extension WorkerClock {
    /// Now, in milliseconds since the Unix epoch.
    public func nowMillis() -> Int64 { nowMicros() / 1000 }
}

/// The real clock: the system's wall clock and `Task.sleep`.
public struct SystemWorkerClock: WorkerClock {
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

extension Duration {
    /// The duration in whole milliseconds, rounded down; held at `Int64.min`/`Int64.max` for durations beyond
    /// them (a provider's `Retry-After: 9223372036854775807` seconds never traps here).
    public var wholeMilliseconds: Int64 {
        let (millis, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return components.seconds > 0 ? .max : .min }
        return millis.addingClamped(components.attoseconds / 1_000_000_000_000_000)
    }

    /// The duration in milliseconds, with a fraction.
    var fractionalMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
