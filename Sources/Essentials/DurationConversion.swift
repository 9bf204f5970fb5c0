extension Duration {
    private static let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000

    /// The duration in whole milliseconds, rounded towards zero; held at `Int64.min`/`Int64.max` for durations
    /// beyond them (a provider's `Retry-After: 9223372036854775807` seconds never traps here).
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedClamped(by: 1000).addingClamped(attoseconds / Self.attosecondsPerMillisecond)
    }

    /// The duration in whole milliseconds, rounded up, so that a positive duration never becomes zero (which
    /// means "no timeout" to C libraries); saturating like `wholeMilliseconds`.
    public var roundedUpMilliseconds: Int64 {
        let remainder = components.attoseconds % Self.attosecondsPerMillisecond
        return wholeMilliseconds.addingClamped(remainder > 0 ? 1 : 0)
    }

    /// The duration in whole nanoseconds, rounded towards zero; saturating like `wholeMilliseconds`.
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedClamped(by: 1_000_000_000).addingClamped(attoseconds / 1_000_000_000)
    }

    /// The duration in seconds, with a fraction (a `TimeInterval`).
    public var fractionalSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
