/// Typed access to the members of one JSON object, with errors that name the member's path.
struct Fields {
    let members: [JSONMember]
    /// The path of the object itself, or of the array it is element `index` of; empty for the root.
    private let name: String
    private let index: Int?

    init(_ value: JSONValue, path: String) throws(EventError) {
        try self.init(value, name: path, index: nil)
    }

    /// Element `index` of the array at `path`: its path (`recipients[3]`) is written only when an error names it.
    init(_ value: JSONValue, element index: Int, of path: String) throws(EventError) {
        try self.init(value, name: path, index: index)
    }

    private init(_ value: JSONValue, name: String, index: Int?) throws(EventError) {
        guard case .object(let members) = value else {
            throw EventError(
                .decodeError, path: Self.path(name, index), "must be an object, not \(value.typeName)")
        }
        self.members = members
        self.name = name
        self.index = index
    }

    /// The path of an object: `name`, or `name[index]` for an element.
    private static func path(_ name: String, _ index: Int?) -> String {
        index.map { "\(name)[\($0)]" } ?? name
    }

    func path(_ key: String) -> String {
        let base = Self.path(name, index)
        return base.isEmpty ? key : "\(base).\(key)"
    }

    func value(_ key: String) -> JSONValue? {
        members.last { $0.key == key }?.value
    }

    private func mistyped(_ key: String, _ expected: String, _ value: JSONValue) -> EventError {
        EventError(.decodeError, path: path(key), "must be \(expected), not \(value.typeName)")
    }

    /// A non-empty string of at most `maxLength` characters (Unicode scalars, as JSON Schema's `maxLength` counts);
    /// `nil` when another check bounds it.
    func requiredString(_ key: String, maxLength: Int?) throws(EventError) -> String {
        guard let value = value(key), value != .null else {
            throw EventError(.decodeError, path: path(key), "required")
        }
        guard case .string(let text) = value else { throw mistyped(key, "a string", value) }
        guard !text.isEmpty else { throw EventError(.decodeError, path: path(key), "must not be empty") }
        guard let maxLength else { return text }
        return try checked(text, key, maxLength: maxLength)
    }

    /// A string of at most `maxLength` characters; `nil` for no limit or when another check bounds it.
    func optionalString(_ key: String, maxLength: Int?) throws(EventError) -> String? {
        switch value(key) {
        case nil, .null?: return nil
        case .string(let text)?:
            return try maxLength.map { (limit) throws(EventError) in try checked(text, key, maxLength: limit) } ?? text
        case let other?: throw mistyped(key, "a string", other)
        }
    }

    private func checked(_ text: String, _ key: String, maxLength: Int) throws(EventError) -> String {
        // Every scalar takes at least one UTF-8 byte, so the byte count (kept by the string) usually settles it.
        guard text.utf8.count > maxLength, text.unicodeScalars.count > maxLength else { return text }
        throw EventError(.decodeError, path: path(key), "must be at most \(maxLength) characters")
    }

    func optionalBool(_ key: String) throws(EventError) -> Bool? {
        switch value(key) {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case let other?: throw mistyped(key, "a boolean", other)
        }
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int>) throws(EventError) -> Int? {
        switch value(key) {
        case nil, .null?: return nil
        case .number(let literal)?:
            guard let number = Int(literal), range.contains(number) else {
                throw EventError(
                    .decodeError, path: path(key),
                    "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        case let other?: throw mistyped(key, "a number", other)
        }
    }

    func object(_ key: String) throws(EventError) -> Fields {
        guard let value = value(key), value != .null else {
            throw EventError(.decodeError, path: path(key), "required")
        }
        return try Fields(value, path: path(key))
    }

    func optionalObject(_ key: String) throws(EventError) -> Fields? {
        guard let value = value(key), value != .null else { return nil }
        return try Fields(value, path: path(key))
    }

    func array(_ key: String) throws(EventError) -> [JSONValue] {
        guard let value = value(key), value != .null else {
            throw EventError(.decodeError, path: path(key), "required")
        }
        guard case .array(let elements) = value else { throw mistyped(key, "an array", value) }
        return elements
    }
}
