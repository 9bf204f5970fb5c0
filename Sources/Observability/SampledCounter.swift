import Synchronization

/// A Prometheus `counter` whose total is read from elsewhere at each scrape (CPU seconds from `getrusage`, commits
/// counted by librdkafka's callback) instead of being incremented; it never goes down.
public final class SampledCounter: Sendable {
    /// The `Double`'s bit pattern, so that it can live in an atomic word.
    private let bits = Atomic<UInt64>(0.0.bitPattern)

    init() {}

    /// Sets the total to `total` unless that is below the current one (a counter only goes up).
    public func advance(to total: Double) {
        var current = bits.load(ordering: .relaxed)
        while Double(bitPattern: current) < total {
            let (exchanged, original) = bits.weakCompareExchange(
                expected: current, desired: total.bitPattern, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// The current total.
    public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
}
