import Essentials

/// The retry topics: one per delay tier, named `<base>-<delay in ms>` as Spring Kafka's non-blocking retries
/// name theirs (`push.retry-1000`, `push.retry-60000`, …). Pure.
///
/// A retry record goes to the shortest tier whose delay covers its wait and is taken up exactly that tier's
/// delay after it was written (`x-retry-due`), never before its real due time. Every record of a tier waits
/// the same time, so a partition's order is the order of its due times: the consumer pauses a tier partition
/// only until its first record is due, and the records behind it are due no sooner. A long wait never holds up
/// a short one: they are in different tiers. A wait beyond the longest tier goes to the longest tier with
/// `x-retry-not-before` (its real due time) and, when taken up, moves on unsent to the tier that covers the rest.
public struct RetryTiers: Sendable, Equatable {
    /// `1s, 10s, 1m, 10m, 1h`.
    public static let defaultDelays: [Duration] = [
        .seconds(1), .seconds(10), .seconds(60), .seconds(600), .seconds(3600),
    ]

    /// Where a retry record goes and when it is taken up again.
    public struct Route: Sendable, Equatable {
        public var topic: String
        /// When the tier gives the record back (`x-retry-due`, epoch ms).
        public var takeUpMillis: Int64
        /// The real due time when it lies beyond `takeUpMillis` (`x-retry-not-before`), else nil.
        public var notBeforeMillis: Int64?
    }

    /// The name the tier topics start with (`PUSH_RETRY_TOPIC`).
    public let base: String
    /// Each tier's delay in milliseconds, ascending, distinct, at least 1, never empty.
    public let delaysMillis: [Int64]
    /// Every tier's topic, shortest delay first.
    public let topics: [String]

    /// Tiers of `delays` (sorted, duplicates dropped, each at least 1 ms); an empty list means `defaultDelays`.
    public init(base: String, delays: [Duration] = defaultDelays) {
        let given = Set(delays.map { max(1, $0.wholeMilliseconds) }).sorted()
        let millis = given.isEmpty ? Self.defaultDelays.map(\.wholeMilliseconds) : given
        self.base = base
        self.delaysMillis = millis
        self.topics = millis.map { Self.topic(base: base, delayMillis: $0) }
    }

    /// Whether `topic` is one of the tiers: records there carry failure headers the worker wrote.
    public func contains(_ topic: String) -> Bool { topics.contains(topic) }

    /// The tier for a record due at `dueMillis`, written at `nowMillis`: the shortest tier whose delay covers
    /// the wait, else the longest one (then with `notBeforeMillis`). Saturates instead of overflowing.
    public func route(dueMillis: Int64, nowMillis: Int64) -> Route {
        let (difference, overflow) = dueMillis.subtractingReportingOverflow(nowMillis)
        let wait = overflow ? (dueMillis > nowMillis ? Int64.max : Int64.min) : difference
        let delay = delaysMillis.first { $0 >= wait } ?? delaysMillis[delaysMillis.count - 1]
        let takeUp = nowMillis.addingClamped(delay)
        return Route(
            topic: Self.topic(base: base, delayMillis: delay), takeUpMillis: takeUp,
            notBeforeMillis: dueMillis > takeUp ? dueMillis : nil)
    }

    private static func topic(base: String, delayMillis: Int64) -> String { "\(base)-\(delayMillis)" }
}
