import Essentials
import PushCore

/// `receipts stats --format table`: the statistics as aligned text for a terminal. Pure.
public enum StatisticsTable {
    public static func render(_ statistics: ReceiptStatistics) -> String {
        var lines: [String] = []
        let window =
            if let first = statistics.firstMillis, let last = statistics.lastMillis {
                "\(RFC3339.format(epochMillis: first)) … \(RFC3339.format(epochMillis: last))"
            } else { "-" }
        lines.append(
            "receipts: \(statistics.total) (unreadable records \(statistics.unreadable), filtered out "
                + "\(statistics.filteredOut)); window \(window)")
        lines.append(copies(statistics))
        let latency = statistics.latency
        let quantiles = [("p50", 0.5), ("p95", 0.95), ("p99", 0.99)].map { name, q in
            "\(name) \(latency.quantile(q).map { DecimalText.format($0, fractionDigits: 1) } ?? "-")"
        }
        lines.append(
            "delivery rate: \(percent(statistics.deliveryRate)); send latency ms: "
                + quantiles.joined(separator: ", ") + " (\(latency.count) sends)")
        lines.append(
            "suspect invalid_token receipts (not acted on: the misconfiguration guard): \(statistics.suspect)")
        let statuses = StatisticsRows.statuses(statistics)
        lines += section(
            "by status", header: ["status", "receipts"],
            rows: statuses.map { status in
                [status, String(statistics.byStatus[status] ?? 0)]
            })
        for (title, field, counts) in [
            ("by platform", "platform", statistics.byPlatform), ("by type", "type", statistics.byType),
        ] {
            lines += section(
                title, header: [field] + statuses + ["total"],
                rows: counts.keys.sorted().map { key in
                    let row = counts[key] ?? [:]
                    return [key] + statuses.map { String(row[$0] ?? 0) } + [String(row.values.reduce(0, +))]
                })
        }
        lines += section(
            "attempts", header: ["attempts", "receipts"],
            rows: statistics.attempts.keys.sorted().map {
                [$0 == ReceiptStatistics.attemptsCap ? "\($0)+" : String($0), String(statistics.attempts[$0] ?? 0)]
            })
        lines += section(
            "top failure reasons", header: ["status", "reason", "receipts"],
            rows: statistics.topFailureReasons().map { [$0.reason.status, $0.reason.reason, String($0.count)] })
        lines += section(
            "per minute", header: ["minute", "receipts", "delivered", "skipped", "delivery rate"],
            rows: statistics.minutes.sorted { $0.key < $1.key }.map { start, minute in
                [
                    RFC3339.format(epochMillis: start), String(minute.receipts), String(minute.delivered),
                    String(minute.skipped), percent(minute.deliveryRate),
                ]
            })
        lines += section(
            "by " + statistics.dimensions.map(\.rawValue).joined(separator: ", "),
            header: statistics.dimensions.map(\.rawValue) + ["receipts"],
            rows: StatisticsRows.breakdown(statistics).map { $0.values + [String($0.count)] })
        return lines.joined(separator: "\n")
    }

    /// How copies were treated: counted, or dropped (how many, whether exactly), and receipts without an id.
    static func copies(_ statistics: ReceiptStatistics) -> String {
        let treatment =
            statistics.countsCopies
            ? "every copy counted"
            : "copies dropped: \(statistics.copiesDropped)"
                + (statistics.copiesAreExact ? "" : " (approximate: more distinct receipt ids than kept exactly)")
        return treatment + "; receipts without receiptId (counted every time): \(statistics.withoutReceiptId)"
    }

    static func percent(_ rate: Double?) -> String {
        rate.map { DecimalText.format($0 * 100, fractionDigits: 2) + " %" } ?? "-"
    }

    /// A titled table, columns padded to their widest cell; numbers right-aligned.
    private static func section(_ title: String, header: [String], rows: [[String]]) -> [String] {
        guard !rows.isEmpty else { return ["", "\(title): none"] }
        let table = [header] + rows
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return ["", "\(title):"]
            + table.map { row in
                "  "
                    + zip(row, widths).enumerated().map { column, cell in
                        let (text, width) = cell
                        let padding = String(repeating: " ", count: width - text.count)
                        return column == 0 ? text + padding : padding + text
                    }.joined(separator: "  ")
            }
    }
}
