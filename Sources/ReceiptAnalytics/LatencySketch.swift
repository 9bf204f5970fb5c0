import Glibc

/// A mergeable quantile sketch for latencies with a guaranteed relative error (a log-bucketed histogram in
/// the manner of DDSketch). Pure.
///
/// A value `x` falls in bucket `i = ⌈log_γ x⌉`, where `γ = (1 + α) / (1 − α)` and `α` is
/// `relativeAccuracy`; the bucket stands for `2γ^i / (γ + 1)`, which is within `α` of every value in
/// `(γ^(i−1), γ^i]`. So every quantile is within 1 % of the exact value of the same rank. Values are
/// clamped to `minimumValue...maximumValue` (1 µs to about 11.6 days), which bounds the sketch to about
/// 1,400 buckets whatever is added.
public struct LatencySketch: Sendable, Equatable {
    /// The bound on the relative error of every quantile.
    public static let relativeAccuracy = 0.01
    /// The smallest value kept apart: anything at or below it counts as this (milliseconds).
    public static let minimumValue = 0.001
    /// The largest value kept apart: anything above it counts as this (milliseconds).
    public static let maximumValue = 1_000_000_000.0

    private static let gamma = (1 + relativeAccuracy) / (1 - relativeAccuracy)
    private static let logGamma = log(gamma)

    /// Count per bucket index.
    public private(set) var buckets: [Int: UInt64] = [:]
    /// How many values were added.
    public private(set) var count: UInt64 = 0
    /// The exact smallest and largest values added (after clamping), `nil` while empty.
    public private(set) var minimum: Double?
    public private(set) var maximum: Double?

    public init() {}

    /// Adds one value; NaN is ignored, negative values count as the minimum.
    public mutating func add(_ value: Double) {
        guard !value.isNaN else { return }
        let clamped = Swift.min(Swift.max(value, Self.minimumValue), Self.maximumValue)
        buckets[Self.index(of: clamped), default: 0] += 1
        count += 1
        minimum = Swift.min(minimum ?? clamped, clamped)
        maximum = Swift.max(maximum ?? clamped, clamped)
    }

    /// Adds every value of `other` (sketches of several workers or windows combine exactly).
    public mutating func merge(_ other: LatencySketch) {
        for (index, bucketCount) in other.buckets { buckets[index, default: 0] += bucketCount }
        count += other.count
        if let low = other.minimum { minimum = Swift.min(minimum ?? low, low) }
        if let high = other.maximum { maximum = Swift.max(maximum ?? high, high) }
    }

    /// The value at quantile `q` (0...1) within `relativeAccuracy`: the value at index `⌊q·count⌋` (at most
    /// `count − 1`) in sorted order, as ClickHouse's `quantileExact` picks it; `nil` while empty.
    public func quantile(_ q: Double) -> Double? {
        guard count > 0, let minimum, let maximum else { return nil }
        let rank = Swift.min(UInt64((Swift.min(Swift.max(q, 0), 1) * Double(count)).rounded(.down)), count - 1)
        var seen: UInt64 = 0
        for index in buckets.keys.sorted() {
            seen += buckets[index] ?? 0
            if seen > rank { return Swift.min(Swift.max(Self.value(ofBucket: index), minimum), maximum) }
        }
        return maximum
    }

    /// The buckets in ascending order, each with the range of values it holds and its count.
    public var histogram: [(lower: Double, upper: Double, count: UInt64)] {
        buckets.keys.sorted().map { index in
            (pow(Self.gamma, Double(index - 1)), pow(Self.gamma, Double(index)), buckets[index] ?? 0)
        }
    }

    static func index(of value: Double) -> Int {
        Int((log(value) / logGamma).rounded(.up))
    }

    static func value(ofBucket index: Int) -> Double {
        2 * pow(gamma, Double(index)) / (gamma + 1)
    }
}
