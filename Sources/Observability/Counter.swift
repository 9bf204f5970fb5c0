import Synchronization

/// A count that only goes up (Prometheus `counter`); one atomic add per increment.
public final class Counter: Sendable {
    private let count = Atomic<UInt64>(0)

    init() {}

    /// Adds `amount` (default 1).
    public func increment(by amount: UInt64 = 1) {
        count.wrappingAdd(amount, ordering: .relaxed)
    }

    /// The current count.
    public var value: UInt64 { count.load(ordering: .relaxed) }
}
