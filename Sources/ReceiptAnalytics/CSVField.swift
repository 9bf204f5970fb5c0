/// One CSV field, RFC 4180 style. Pure.
public enum CSVField {
    /// `text` quoted when it holds a comma, a quote or a line break (quotes doubled), else as it is.
    public static func quoted(_ text: String) -> String {
        guard text.contains(where: { ",\"\r\n".contains($0) }) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// Like `quoted`, but a value starting with `=`, `+`, `-` or `@` that is not a number is prefixed with
    /// `'`, so a spreadsheet never runs a value from a receipt as a formula (for reports read by people).
    public static func spreadsheetSafe(_ text: String) -> String {
        guard text.count > 1, let first = text.first, "=+-@".contains(first), Double(text) == nil else {
            return quoted(text)
        }
        return quoted("'" + text)
    }
}
