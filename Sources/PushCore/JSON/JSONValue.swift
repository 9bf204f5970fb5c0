/// A parsed JSON value that keeps what a round trip needs: member order, and numbers as their literal text.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number exactly as written in the source (`3`, `-1.5e3`), so re-encoding never changes it.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The value of member `key` when this is an object that has it (`JSONParser` never yields a name twice).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The string when this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// A short name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
