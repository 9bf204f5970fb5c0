import Essentials
import Synchronization

/// Observations counted into fixed buckets, with their sum (Prometheus `histogram`), e.g. send latency in seconds.
public final class Histogram: Sendable {
    /// Prometheus' default buckets, in seconds: 5 ms to 10 s.
    public static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// The inclusive upper bounds of the buckets, strictly increasing and finite; `+Inf` is implicit.
    public let upperBounds: [Double]
    private let state: Mutex<Snapshot>

    /// Bucket counts (one per upper bound, not cumulative, plus the overflow), sum and count, read consistently.
    struct Snapshot {
        var bucketCounts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0
    }

    init(upperBounds: [Double]) {
        self.upperBounds = upperBounds
        state = Mutex(Snapshot(bucketCounts: Array(repeating: 0, count: upperBounds.count + 1)))
    }

    /// Records one observation; NaN is ignored.
    public func observe(_ value: Double) {
        guard !value.isNaN else { return }
        let bucket = upperBounds.firstIndex { value <= $0 } ?? upperBounds.count
        state.withLock { snapshot in
            snapshot.bucketCounts[bucket] &+= 1
            snapshot.sum += value
            snapshot.count &+= 1
        }
    }

    /// Records a duration in seconds.
    public func observe(_ duration: Duration) {
        observe(duration.fractionalSeconds)
    }

    /// The number of observations so far.
    public var count: UInt64 { state.withLock { $0.count } }

    /// The sum of all observations so far.
    public var sum: Double { state.withLock { $0.sum } }

    func snapshot() -> Snapshot {
        state.withLock { $0 }
    }
}
