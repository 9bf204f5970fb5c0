/// A strict RFC 8259 parser into `JSONValue`: UTF-8 validated, no trailing garbage, nesting bounded, no duplicate
/// member names (see `JSONTape`, which reads the document).
public enum JSONParser {
    /// Parses one complete JSON document.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try JSONTape(parsing: bytes).withRoot { $0.tree }
    }
}
