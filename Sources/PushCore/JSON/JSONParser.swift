/// A strict RFC 8259 parser into `JSONValue`: UTF-8 validated, no trailing garbage, nesting bounded, no duplicate
/// member names (see `JSONTape`, which reads the document).
public enum JSONParser {
    /// Parses one complete JSON document.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try JSONTape(parsing: bytes).withRoot { $0.tree }
    }

    /// The string member `name` of the object `bytes` holds, read in place without the document's tree (a provider's
    /// every answer is read for one string); `nil` when `bytes` is not one valid JSON document, not an object, or has
    /// no string member of that name.
    public static func string(member name: StaticString, of bytes: [UInt8]) -> String? {
        guard let tape = try? JSONTape(parsing: bytes) else { return nil }
        return tape.withRoot { $0.member(MemberKey(stringLiteral: name))?.string }
    }
}
