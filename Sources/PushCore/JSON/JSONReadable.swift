/// A JSON value as the decoders read it (`ObjectFields`): a parsed tree (`JSONValue`), or a value of a `JSONTape`
/// read in place, which copies out only what is asked for.
protocol JSONReadable {
    /// A short name of the JSON type, for error messages.
    var typeName: String { get }
    var isNull: Bool { get }
    var isObject: Bool { get }
    /// The text when this is a string.
    var string: String? { get }
    /// The flag when this is `true` or `false`.
    var bool: Bool? { get }
    /// The literal when this is a number, exactly as written (`3`, `-1.5e3`).
    var numberLiteral: String? { get }
    /// The value of member `key` when this is an object that has it.
    func member(_ key: MemberKey) -> Self?
    /// An array's elements, in order.
    associatedtype Elements: Collection<Self>
    /// The elements when this is an array.
    var elements: Elements? { get }
    /// The value as a tree.
    var tree: JSONValue { get }
}

extension JSONValue: JSONReadable {
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    var string: String? { stringValue }

    var bool: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    var numberLiteral: String? {
        if case .number(let literal) = self { return literal }
        return nil
    }

    func member(_ key: MemberKey) -> JSONValue? { self[key.description] }

    var elements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    var tree: JSONValue { self }
}
