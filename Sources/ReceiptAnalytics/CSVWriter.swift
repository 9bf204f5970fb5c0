/// The CSV of every export (`receipts stats --format csv`, `receipts invalid-tokens --format csv`): RFC 4180
/// fields, lines ending in LF, and no field a spreadsheet would run as a formula. Pure.
///
/// Fields hold chat users' text (message, user and room ids), so OWASP's CSV-injection rule applies to every one:
/// a field starting with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` and quoted, so it
/// reads as text. A field is quoted when it holds a comma, a quote (doubled) or any CR or LF. Both tests look at
/// UTF-8 bytes: Swift's `Character` takes "\r\n" as one character, and "=" followed by a combining mark as one
/// that is not "=".
public enum CSVWriter {
    /// `header` and `rows`, one line each.
    public static func document(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\n")
    }

    /// One field, escaped and quoted as needed.
    public static func field(_ text: String) -> String {
        let bytes = text.utf8
        let formula = bytes.first.map(formulaStarts.contains) ?? false
        guard formula || bytes.contains(where: needsQuotes.contains) else { return text }
        let body = (formula ? "'" : "") + text
        return "\"" + body.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    private static let formulaStarts: Set<UInt8> = Set("=+-@\t\r".utf8)
    private static let needsQuotes: Set<UInt8> = Set(",\"\r\n".utf8)
}
