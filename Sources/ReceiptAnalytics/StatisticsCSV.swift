/// `receipts stats --format csv`: the breakdown (`--by`) as CSV with a header row (see `CSVWriter`), each
/// receiptId counted once unless copies are counted. Pure.
public enum StatisticsCSV {
    public static func render(_ statistics: ReceiptStatistics) -> String {
        let header = statistics.dimensions.map(\.rawValue) + ["receipts"]
        let rows = StatisticsRows.breakdown(statistics).map { $0.values + [String($0.count)] }
        return CSVWriter.document(header: header, rows: rows)
    }
}
