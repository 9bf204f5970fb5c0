/// Typed access to the members of one JSON object of a parsed tree.
typealias Fields = ObjectFields<JSONValue>

/// Typed access to the members of one JSON object, with errors that name the member's path.
struct ObjectFields<Value: JSONReadable> {
    /// The object.
    let object: Value
    /// The path of the object itself, or of the array it is element `index` of; empty for the root.
    private let name: String
    private let index: Int?

    init(_ value: Value, path: String) throws(EventError) {
        try self.init(value, name: path, index: nil)
    }

    /// Element `index` of the array at `path`: its path (`recipients[3]`) is written only when an error names it.
    init(_ value: Value, element index: Int, of path: String) throws(EventError) {
        try self.init(value, name: path, index: index)
    }

    private init(_ value: Value, name: String, index: Int?) throws(EventError) {
        guard value.isObject else {
            throw EventError(
                .decodeError, path: Self.path(name, index), "must be an object, not \(value.typeName)")
        }
        self.object = value
        self.name = name
        self.index = index
    }

    /// The path of an object: `name`, or `name[index]` for an element.
    private static func path(_ name: String, _ index: Int?) -> String {
        index.map { "\(name)[\($0)]" } ?? name
    }

    func path(_ key: MemberKey) -> String {
        path(key.description)
    }

    /// The path of member `name` (or of an element within it, `name[3]`) of this object.
    func path(_ name: String) -> String {
        let base = Self.path(self.name, index)
        return base.isEmpty ? name : "\(base).\(name)"
    }

    func value(_ key: MemberKey) -> Value? {
        object.member(key)
    }

    private func mistyped(_ key: MemberKey, _ expected: String, _ value: Value) -> EventError {
        EventError(.decodeError, path: path(key), "must be \(expected), not \(value.typeName)")
    }

    /// A non-empty string of at most `maxLength` characters (Unicode scalars, as JSON Schema's `maxLength` counts);
    /// `nil` when another check bounds it.
    func requiredString(_ key: MemberKey, maxLength: Int?) throws(EventError) -> String {
        guard let value = value(key), !value.isNull else {
            throw EventError(.decodeError, path: path(key), "required")
        }
        guard let text = value.string else { throw mistyped(key, "a string", value) }
        guard !text.isEmpty else { throw EventError(.decodeError, path: path(key), "must not be empty") }
        guard let maxLength else { return text }
        return try checked(text, key, maxLength: maxLength)
    }

    /// A string of at most `maxLength` characters; `nil` for no limit or when another check bounds it.
    func optionalString(_ key: MemberKey, maxLength: Int?) throws(EventError) -> String? {
        guard let value = value(key), !value.isNull else { return nil }
        guard let text = value.string else { throw mistyped(key, "a string", value) }
        return try maxLength.map { (limit) throws(EventError) in try checked(text, key, maxLength: limit) } ?? text
    }

    private func checked(_ text: String, _ key: MemberKey, maxLength: Int) throws(EventError) -> String {
        // Every scalar takes at least one UTF-8 byte, so the byte count (kept by the string) usually settles it.
        guard text.utf8.count > maxLength, text.unicodeScalars.count > maxLength else { return text }
        throw EventError(.decodeError, path: path(key), "must be at most \(maxLength) characters")
    }

    func optionalBool(_ key: MemberKey) throws(EventError) -> Bool? {
        guard let value = value(key), !value.isNull else { return nil }
        guard let flag = value.bool else { throw mistyped(key, "a boolean", value) }
        return flag
    }

    func optionalInteger(_ key: MemberKey, in range: ClosedRange<Int>) throws(EventError) -> Int? {
        guard let value = value(key), !value.isNull else { return nil }
        guard let literal = value.numberLiteral else { throw mistyped(key, "a number", value) }
        guard let number = Int(literal), range.contains(number) else {
            throw EventError(
                .decodeError, path: path(key),
                "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    func object(_ key: MemberKey) throws(EventError) -> ObjectFields {
        guard let value = value(key), !value.isNull else {
            throw EventError(.decodeError, path: path(key), "required")
        }
        return try ObjectFields(value, path: path(key))
    }

    func optionalObject(_ key: MemberKey) throws(EventError) -> ObjectFields? {
        guard let value = value(key), !value.isNull else { return nil }
        return try ObjectFields(value, path: path(key))
    }

    func array(_ key: MemberKey) throws(EventError) -> Value.Elements {
        guard let value = value(key), !value.isNull else {
            throw EventError(.decodeError, path: path(key), "required")
        }
        guard let elements = value.elements else { throw mistyped(key, "an array", value) }
        return elements
    }
}
