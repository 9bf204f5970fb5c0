#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    /// The current time of the system's real-time clock.
    public static func now() -> LogTimestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return LogTimestamp(secondsSinceEpoch: Int64(time.tv_sec), nanoseconds: Int32(time.tv_nsec))
    }

    /// RFC 3339 in UTC with milliseconds, e.g. `2026-11-29T12:00:00.125Z`.
    public var rfc3339: String {
        let days = secondsSinceEpoch.floorDivided(by: 86_400)
        let secondOfDay = secondsSinceEpoch - days * 86_400
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        let milliseconds = Int64(nanoseconds / 1_000_000)
        return "\(Self.digits(year, 4))-\(Self.digits(month, 2))-\(Self.digits(day, 2))T"
            + "\(Self.digits(secondOfDay / 3600, 2)):\(Self.digits(secondOfDay % 3600 / 60, 2)):"
            + "\(Self.digits(secondOfDay % 60, 2)).\(Self.digits(milliseconds, 3))Z"
    }

    /// The proleptic Gregorian date of a day count (Howard Hinnant's `civil_from_days`).
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSinceEpoch + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func digits(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

extension Int64 {
    /// Division rounding towards negative infinity, so dates before 1970 come out right.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
