import Essentials

/// Indents JSON for people (two spaces), keeping member order; for CLI output and golden files.
public enum JSONPrettyPrinter {
    /// The indented text of `value`.
    public static func format(_ value: JSONValue) -> String {
        var text = ""
        append(value, indent: "", to: &text)
        return text
    }

    private static func append(_ value: JSONValue, indent: String, to text: inout String) {
        let inner = indent + "  "
        switch value {
        case .array(let elements) where !elements.isEmpty:
            text += "[\n"
            for (index, element) in elements.enumerated() {
                text += inner
                append(element, indent: inner, to: &text)
                text += index == elements.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        case .object(let members) where !members.isEmpty:
            text += "{\n"
            for (index, member) in members.enumerated() {
                text += inner + JSONWriter.quoted(member.key) + ": "
                append(member.value, indent: inner, to: &text)
                text += index == members.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        default:
            text += String(decoding: JSONWriter.encode(value), as: UTF8.self)
        }
    }
}
