import Essentials

/// Tells a receipt that repeats one already counted (the same `receiptId`: a copy that at-least-once delivery
/// wrote again after a crash or a rebalance) from a new one, in bounded memory. Pure.
///
/// The ids seen are kept as 64-bit hashes in two generations of at most `limit / 2` each: the newer one takes
/// new ids, and when it is full it becomes the older one and the oldest generation is dropped. So the answer is
/// exact while the window holds at most `limit` distinct ids (`isExact`), and beyond that every id is still
/// remembered for at least the next `limit / 2` distinct ids: only a copy read later than that counts again.
/// Copies are written by the worker that takes over the uncommitted sends, seconds after the first ones, in the
/// same partition (the receipt's key is its message id). At the default limit (4,000,000) a false "copy" needs two ids of one window with the same
/// 64-bit hash: a chance below 1 in 2 million.
struct ReceiptCopies: Sendable {
    /// Whether every copy seen so far was recognized (no generation was dropped yet).
    private(set) var isExact = true
    private let generationSize: Int
    private var newer: Set<Int> = []
    private var older: Set<Int> = []

    init(limit: Int) {
        generationSize = max(limit / 2, 1)
    }

    /// Whether `receiptId` was seen before; remembers it when not.
    mutating func isCopy(_ receiptId: String) -> Bool {
        var hasher = Hasher()
        hasher.combine(ByteID(receiptId))
        let key = hasher.finalize()
        if newer.contains(key) || older.contains(key) { return true }
        if newer.count >= generationSize {
            if !older.isEmpty { isExact = false }
            older = newer
            newer = []
        }
        newer.insert(key)
        return false
    }
}
