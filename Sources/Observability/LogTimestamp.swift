import Essentials

/// A wall-clock instant of a log event, in UTC.
public struct LogTimestamp: Sendable, Equatable {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    public var secondsSinceEpoch: Int64
    /// Nanoseconds within the second, 0 ..< 1_000_000_000.
    public var nanoseconds: Int32

    public init(secondsSinceEpoch: Int64, nanoseconds: Int32) {
        self.secondsSinceEpoch = secondsSinceEpoch
        self.nanoseconds = nanoseconds
    }

    /// The current time of the system's real-time clock, to the microsecond.
    public static func now() -> LogTimestamp {
        let micros = SystemWallClock().nowMicros()
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        return LogTimestamp(secondsSinceEpoch: seconds, nanoseconds: Int32((micros - seconds * 1_000_000) * 1000))
    }

    /// RFC 3339 in UTC with milliseconds, e.g. `2026-11-29T12:00:00.125Z`.
    public var rfc3339: String {
        RFC3339.format(
            epochMillis: secondsSinceEpoch.multipliedClamped(by: 1000).addingClamped(Int64(nanoseconds / 1_000_000)))
    }
}
