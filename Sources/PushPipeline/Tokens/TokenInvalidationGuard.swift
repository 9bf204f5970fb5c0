import Essentials

/// The guard against a misconfiguration wiping the device registry: a wrong `APNS_TOPIC`, sandbox tokens sent to
/// production or another project's FCM account make the provider call every token dead. When, over the sliding
/// window, more than `maximumRatio` of an app's sends to one provider came back "invalid token", with at least
/// `minimumSends` sends, those answers are suspect: the worker should stop acting on them for that app and provider
/// (no tombstones, no invalid-token records, no skipping) until the ratio falls again. Pure: time comes in as
/// milliseconds.
///
/// The window is `bucketCount` buckets of `window / bucketCount` each; a bucket older than the window is dropped,
/// so the counts slide by one bucket at a time and memory stays bounded per app and provider.
public struct TokenInvalidationGuard: Sendable {
    /// One app's sends to one provider; apps are told apart by their ids' bytes (`ByteID`).
    public struct Scope: Sendable, Hashable {
        public var app: String
        public var provider: PushProvider

        public init(app: String, provider: PushProvider) {
            self.app = app
            self.provider = provider
        }

        public static func == (lhs: Scope, rhs: Scope) -> Bool {
            lhs.provider == rhs.provider && ByteID(lhs.app) == ByteID(rhs.app)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(ByteID(app))
            hasher.combine(provider)
        }
    }

    private struct Bucket: Sendable {
        var start: Int64
        var sends = 0
        var invalid = 0
    }

    public let maximumRatio: Double
    public let minimumSends: Int
    private let bucketMillis: Int64
    private let bucketCount: Int
    private var buckets: [Scope: [Bucket]] = [:]

    /// `maximumRatio` is `PUSH_INVALIDATION_MAX_RATIO` (0.2), `minimumSends` `PUSH_INVALIDATION_MIN_SENDS` (200).
    public init(
        maximumRatio: Double = 0.2, minimumSends: Int = 200, windowMillis: Int64 = 300_000, bucketCount: Int = 10
    ) {
        self.maximumRatio = maximumRatio
        self.minimumSends = max(1, minimumSends)
        self.bucketCount = max(1, bucketCount)
        self.bucketMillis = max(1, windowMillis / Int64(max(1, bucketCount)))
    }

    /// Counts one answer of `scope`'s provider at `nowMillis`: `invalid` when it called the token dead. Returns
    /// whether `scope`'s "invalid token" answers are suspect now, this one included (`isSuspended`). It runs for every
    /// answer: the scope is looked up once and its buckets changed in place.
    @discardableResult
    public mutating func record(_ scope: Scope, invalid: Bool, nowMillis: Int64) -> Bool {
        let start = nowMillis - nowMillis.remainderReportingOverflow(dividingBy: bucketMillis).partialValue
        let oldest = oldestStart(nowMillis: nowMillis)
        let totals = Self.add(
            to: &buckets[scope, default: []], start: start, invalid: invalid, oldest: oldest, nowMillis: nowMillis)
        return isSuspect(totals)
    }

    /// `record` on one scope's buckets: those that left the window (starting at or before `oldest`) are dropped, the
    /// answer counted in the bucket starting at `start`. Returns the sends and invalid answers left in the window.
    private static func add(
        to list: inout [Bucket], start: Int64, invalid: Bool, oldest: Int64, nowMillis: Int64
    ) -> (sends: Int, invalid: Int) {
        if list.contains(where: { !isInWindow($0, oldest: oldest, nowMillis: nowMillis) }) {
            list.removeAll { !isInWindow($0, oldest: oldest, nowMillis: nowMillis) }
        }
        if list.last?.start != start { list.append(Bucket(start: start)) }
        list[list.count - 1].sends += 1
        if invalid { list[list.count - 1].invalid += 1 }
        return totals(list)
    }

    /// Whether `scope`'s "invalid token" answers are suspect at `nowMillis`.
    public func isSuspended(_ scope: Scope, nowMillis: Int64) -> Bool {
        isSuspect(Self.totals(current(scope, nowMillis: nowMillis)))
    }

    /// Whether a window's answers are enough sends, and too many of them invalid.
    private func isSuspect(_ totals: (sends: Int, invalid: Int)) -> Bool {
        totals.sends >= minimumSends && Double(totals.invalid) > maximumRatio * Double(totals.sends)
    }

    private static func totals(_ list: [Bucket]) -> (sends: Int, invalid: Int) {
        var totals = (sends: 0, invalid: 0)
        for bucket in list {
            totals.sends += bucket.sends
            totals.invalid += bucket.invalid
        }
        return totals
    }

    /// Every scope suspended at `nowMillis` (for `push_token_invalidation_suspended{app,provider}`).
    public func suspendedScopes(nowMillis: Int64) -> Set<Scope> {
        Set(buckets.keys.filter { isSuspended($0, nowMillis: nowMillis) })
    }

    /// Forgets scopes whose buckets all left the window, so apps that stopped sending take no memory.
    public mutating func prune(nowMillis: Int64) {
        for scope in buckets.keys where current(scope, nowMillis: nowMillis).isEmpty { buckets[scope] = nil }
    }

    /// `scope`'s buckets still inside the window ending at `nowMillis`.
    private func current(_ scope: Scope, nowMillis: Int64) -> [Bucket] {
        let oldest = oldestStart(nowMillis: nowMillis)
        return (buckets[scope] ?? []).filter { Self.isInWindow($0, oldest: oldest, nowMillis: nowMillis) }
    }

    /// The start a bucket must be after to be inside the window ending at `nowMillis`.
    private func oldestStart(nowMillis: Int64) -> Int64 {
        let (span, overflow) = bucketMillis.multipliedReportingOverflow(by: Int64(bucketCount))
        return overflow ? Int64.min : nowMillis &- span
    }

    private static func isInWindow(_ bucket: Bucket, oldest: Int64, nowMillis: Int64) -> Bool {
        bucket.start > oldest && bucket.start <= nowMillis
    }
}
