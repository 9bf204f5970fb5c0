import Essentials

/// Everything `push-worker receipts stats` reports, aggregated in one streaming pass. Pure.
///
/// Memory is bounded whatever the receipts hold: at most `maximumDistinctValues` platforms, types,
/// statuses, reasons and workers are kept apart (later ones count as `(other)`), the latency sketch has at
/// most about 1,400 buckets, attempts are counted up to `attemptsCap`, and the series keeps one entry per
/// minute that has receipts. Each `receiptId` counts once (see `ReceiptCopies` for its bound) unless
/// `countsCopies`; receipts without one (written before receipts had it) count every time they are read.
public struct ReceiptStatistics: Sendable {
    /// Distinct values kept apart per field.
    public static let maximumDistinctValues = 1000
    /// Receipt ids told apart exactly by default (at most about 100 MB of hashes).
    public static let defaultDistinctLimit = 4_000_000
    /// Attempts at or above this count together.
    public static let attemptsCap = 50

    /// Receipt counts of one minute of the series.
    public struct Minute: Sendable, Equatable {
        public var receipts = 0
        public var delivered = 0
        public var skipped = 0

        public init(receipts: Int = 0, delivered: Int = 0, skipped: Int = 0) {
            self.receipts = receipts
            self.delivered = delivered
            self.skipped = skipped
        }

        /// `delivered / (receipts − skipped)`, `nil` when nothing was sent.
        public var deliveryRate: Double? { ReceiptStatistics.rate(delivered, of: receipts - skipped) }
    }

    /// One row of the failure reasons: a status other than delivered or skipped, and its reason.
    public struct FailureReason: Sendable, Hashable {
        public var status: String
        public var reason: String
    }

    /// The fields of `breakdown`, in order.
    public let dimensions: [BreakdownDimension]
    public private(set) var total = 0
    /// Records in the window that were not receipts (not JSON, or missing a required field).
    public private(set) var unreadable = 0
    /// Receipts the filter left out.
    public private(set) var filteredOut = 0
    /// Receipts not counted because one with their `receiptId` was counted before.
    public private(set) var copiesDropped = 0
    /// Receipts counted that have no `receiptId`, so copies among them cannot be told apart.
    public private(set) var withoutReceiptId = 0
    /// Whether every copy is counted (no receipt is dropped as a copy).
    public let countsCopies: Bool
    public private(set) var byStatus: [String: Int] = [:]
    /// Receipts counted that say `"suspect": true`: "invalid token" answers the worker did not act on, as its
    /// app's answers from that provider were mostly "invalid token" (a misconfiguration, not dead tokens). They
    /// count in `byStatus` too, as `invalid_token`.
    public private(set) var suspect = 0
    public private(set) var byPlatform: [String: [String: Int]] = [:]
    public private(set) var byType: [String: [String: Int]] = [:]
    /// Counts per combination of `dimensions` values.
    public private(set) var breakdown: [[String]: Int] = [:]
    public private(set) var latency = LatencySketch()
    /// Receipts per `attempts` value (`attemptsCap` standing for that many or more).
    public private(set) var attempts: [Int: Int] = [:]
    public private(set) var failureReasons: [FailureReason: Int] = [:]
    /// The series, by minute (epoch milliseconds of the minute's start).
    public private(set) var minutes: [Int64: Minute] = [:]
    /// The first and last receipt time seen (epoch milliseconds).
    public private(set) var firstMillis: Int64?
    public private(set) var lastMillis: Int64?

    private let filter: ReceiptFilter
    private var keys: [String: BoundedKeys] = [:]
    private var copies: ReceiptCopies

    /// `distinctLimit`: how many receipt ids are told apart exactly (see `ReceiptCopies`).
    public init(
        dimensions: [BreakdownDimension] = [.status], filter: ReceiptFilter = .all, countsCopies: Bool = false,
        distinctLimit: Int = defaultDistinctLimit
    ) {
        self.dimensions = dimensions
        self.filter = filter
        self.countsCopies = countsCopies
        copies = ReceiptCopies(limit: distinctLimit)
    }

    /// Whether every copy was recognized: the window held no more distinct receipt ids than `distinctLimit`.
    public var copiesAreExact: Bool { copies.isExact }

    /// Counts one record of the window that is not a receipt.
    public mutating func addUnreadable() {
        unreadable += 1
    }

    /// Counts `receipt` if the filter admits it.
    public mutating func add(_ receipt: ReceiptFacts) {
        guard filter.admits(receipt) else {
            filteredOut += 1
            return
        }
        if let id = receipt.receiptId {
            if !countsCopies, copies.isCopy(id) {
                copiesDropped += 1
                return
            }
        } else {
            withoutReceiptId += 1
        }
        let status = key("status", receipt.status)
        let platform = key("platform", receipt.platform)
        let type = key("type", receipt.type)
        total += 1
        byStatus[status, default: 0] += 1
        if receipt.suspect { suspect += 1 }
        byPlatform[platform, default: [:]][status, default: 0] += 1
        byType[type, default: [:]][status, default: 0] += 1
        let row = dimensions.map { dimension in key(dimension.rawValue, dimension.value(of: receipt)) }
        breakdown[row, default: 0] += 1
        if let latencyMillis = receipt.latencyMillis { latency.add(latencyMillis) }
        if let count = receipt.attempts { attempts[min(max(count, 0), Self.attemptsCap), default: 0] += 1 }
        if receipt.status != "delivered", receipt.status != "skipped" {
            let reason = key("reason", receipt.reason ?? "-")
            failureReasons[FailureReason(status: status, reason: reason), default: 0] += 1
        }
        if let time = receipt.timeMillis {
            firstMillis = min(firstMillis ?? time, time)
            lastMillis = max(lastMillis ?? time, time)
            let minuteStart = time - ((time % 60_000) + 60_000) % 60_000
            minutes[minuteStart, default: Minute()].receipts += 1
            if receipt.status == "delivered" { minutes[minuteStart, default: Minute()].delivered += 1 }
            if receipt.status == "skipped" { minutes[minuteStart, default: Minute()].skipped += 1 }
        }
    }

    /// `delivered / (total − skipped)`: the share of the sends that were attempted and arrived.
    public var deliveryRate: Double? {
        Self.rate(byStatus["delivered"] ?? 0, of: total - (byStatus["skipped"] ?? 0))
    }

    /// The most frequent failure reasons, most first (ties by status, then reason).
    public func topFailureReasons(limit: Int = 10) -> [(reason: FailureReason, count: Int)] {
        failureReasons.sorted { left, right in
            left.value != right.value
                ? left.value > right.value
                : (left.key.status, left.key.reason) < (right.key.status, right.key.reason)
        }.prefix(limit).map { ($0.key, $0.value) }
    }

    static func rate(_ part: Int, of whole: Int) -> Double? {
        whole > 0 ? Double(part) / Double(whole) : nil
    }

    private mutating func key(_ field: String, _ value: String) -> String {
        keys[field, default: BoundedKeys(limit: Self.maximumDistinctValues)].key(for: value)
    }
}
