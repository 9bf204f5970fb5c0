public import Essentials

extension JSONWriter {
    /// Writes `"key": value` for a parsed value (see `value(_:)`).
    public mutating func field(_ name: String, _ value: JSONValue) {
        key(name)
        self.value(value)
    }

    /// Writes `"key": value` for a parsed value, with a key given as a literal that needs no escape
    /// (`key(literal:)`).
    public mutating func field(literal name: StaticString, _ value: JSONValue) {
        key(literal: name)
        self.value(value)
    }

    /// Writes a parsed value back, members in their original order and numbers as their original literal.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let literal): number(literal: literal)
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for member in members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    /// The bytes of `value` as compact JSON.
    public static func encode(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.value(value)
        return writer.bytes
    }
}
