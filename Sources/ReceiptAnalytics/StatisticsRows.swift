/// The statistics' tables in the order every format prints them. Pure.
enum StatisticsRows {
    /// The breakdown rows, most receipts first (ties by their values).
    static func breakdown(_ statistics: ReceiptStatistics) -> [(values: [String], count: Int)] {
        statistics.breakdown.sorted { left, right in
            left.value != right.value ? left.value > right.value : left.key.lexicographicallyPrecedes(right.key)
        }.map { ($0.key, $0.value) }
    }

    /// Every status seen, in the receipts contract's order, then any other in name order.
    static func statuses(_ statistics: ReceiptStatistics) -> [String] {
        let known = ["delivered", "invalid_token", "rejected", "expired", "skipped", "dead_lettered"]
        return known.filter { statistics.byStatus[$0] != nil }
            + statistics.byStatus.keys.filter { !known.contains($0) }.sorted()
    }
}
