import Synchronization

/// A value that goes up and down (Prometheus `gauge`), e.g. in-flight sends or consumer lag; lock-free.
public final class Gauge: Sendable {
    /// The `Double`'s bit pattern, so that it can live in an atomic word.
    private let bits = Atomic<UInt64>(0.0.bitPattern)

    init() {}

    /// Replaces the value.
    public func set(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    /// Replaces the value with an integer (lag, queue lengths).
    public func set(_ value: some BinaryInteger) {
        set(Double(value))
    }

    /// Adds `amount` (default 1).
    public func increment(by amount: Double = 1) {
        var current = bits.load(ordering: .relaxed)
        while true {
            let updated = (Double(bitPattern: current) + amount).bitPattern
            let (exchanged, original) = bits.weakCompareExchange(
                expected: current, desired: updated, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Subtracts `amount` (default 1).
    public func decrement(by amount: Double = 1) {
        increment(by: -amount)
    }

    /// The current value.
    public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
}
