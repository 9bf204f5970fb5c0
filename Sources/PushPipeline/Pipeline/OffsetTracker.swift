/// The offsets of one partition that were handed out but are not done yet, and the contiguous
/// watermark: the offset to store is the lowest unfinished one, or one past the highest seen.
///
/// Records may finish in any order; only a watermark with every offset below it done is stored,
/// so a crash never skips an unfinished record. Pure: no I/O.
public struct OffsetTracker: Sendable {
    /// Offsets in the order they were handed out (ascending), with whether each is done.
    private var window: [(offset: Int64, done: Bool)] = []
    private var head = 0
    /// One past the highest offset handed out; the watermark when nothing is pending.
    private var next: Int64?
    /// The watermark last returned by `complete` (at first the first offset, where consumption
    /// started), so callers store only advances.
    public private(set) var stored: Int64?

    public init() {}

    /// Records handed out and not done yet.
    public private(set) var pendingCount = 0

    /// Whether no record is pending.
    public var isIdle: Bool { head == window.count }

    /// The offset to store: the lowest pending offset, or one past the highest seen.
    public var watermark: Int64? {
        head < window.count ? window[head].offset : next
    }

    /// Notes that `offset` was handed out. Offsets below the highest seen are ignored (a redelivery
    /// after a seek is tracked from the new position by a new tracker).
    public mutating func begin(_ offset: Int64) {
        if let next, offset < next { return }
        if next == nil { stored = offset }
        window.append((offset, false))
        next = offset == .max ? .max : offset + 1  // the broker's word: never trap on it
        pendingCount += 1
    }

    /// Marks `offset` done; returns the new watermark when it advanced past the one last returned.
    public mutating func complete(_ offset: Int64) -> Int64? {
        guard let index = indexOf(offset), !window[index].done else { return nil }
        window[index].done = true
        pendingCount -= 1
        while head < window.count, window[head].done { head += 1 }
        if head > 64, head * 2 > window.count {
            window.removeFirst(head)
            head = 0
        }
        guard let mark = watermark, mark != stored else { return nil }
        stored = mark
        return mark
    }

    /// Binary search: offsets in the window ascend.
    private func indexOf(_ offset: Int64) -> Int? {
        var low = head
        var high = window.count
        while low < high {
            let middle = (low + high) / 2
            if window[middle].offset < offset { low = middle + 1 } else { high = middle }
        }
        return low < window.count && window[low].offset == offset ? low : nil
    }
}
