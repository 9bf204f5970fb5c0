/// `receipts stats --format csv`: the breakdown (`--by`) as CSV with a header row and RFC 4180 quoting (lines
/// end in LF), each field safe to open in a spreadsheet. Pure.
public enum StatisticsCSV {
    public static func render(_ statistics: ReceiptStatistics) -> String {
        let header = statistics.dimensions.map(\.rawValue) + ["receipts"]
        let rows = StatisticsRows.breakdown(statistics).map { $0.values + [String($0.count)] }
        return ([header] + rows).map { $0.map(CSVField.spreadsheetSafe).joined(separator: ",") }.joined(separator: "\n")
    }
}
