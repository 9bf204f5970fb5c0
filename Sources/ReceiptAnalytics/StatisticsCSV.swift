/// `receipts stats --format csv`: the breakdown (`--by`) as CSV with a header row and RFC 4180 quoting (lines
/// end in LF). Pure.
public enum StatisticsCSV {
    public static func render(_ statistics: ReceiptStatistics) -> String {
        let header = statistics.dimensions.map(\.rawValue) + ["receipts"]
        let rows = StatisticsRows.breakdown(statistics).map { $0.values + [String($0.count)] }
        return ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\n")
    }

    /// A field quoted when it holds a comma, a quote or a line break (quotes doubled); a leading `=`, `+`,
    /// `-` or `@` is prefixed with `'` so that a spreadsheet never runs a value from a receipt as a formula.
    static func field(_ text: String) -> String {
        var value = text
        if value.count > 1, let first = value.first, "=+-@".contains(first), Double(value) == nil {
            value = "'" + value
        }
        guard value.contains(where: { ",\"\r\n".contains($0) }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
