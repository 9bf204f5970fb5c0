extension JSONTape {
    /// One value of a tape, read in place: only `JSONTape.withRoot`'s body holds one. Nothing here counts references.
    struct Value {
        let entries: UnsafeBufferPointer<Entry>
        let bytes: UnsafeBufferPointer<UInt8>
        let unescaped: UnsafeBufferPointer<String>
        let index: Int

        /// The value at entry `index` of the same tape.
        func at(_ index: Int) -> Value {
            Value(entries: entries, bytes: bytes, unescaped: unescaped, index: index)
        }

        fileprivate var entry: Entry { entries[index] }

        /// The text of a string: validated while reading, so decoding its bytes repairs nothing.
        fileprivate var text: String {
            entry.kind == .escapedString ? unescaped[entry.count] : String(decoding: span, as: UTF8.self)
        }

        /// The literal of a number.
        fileprivate var literal: String { String(decoding: span, as: UTF8.self) }

        /// The entry of the first member's name of an object, and of the next name after the one at `name`.
        fileprivate var firstName: Int { index + 1 }
        fileprivate func name(after name: Int) -> Int { entries[name + 1].next }

        /// The bytes of a string or number (see `Entry`).
        fileprivate var span: UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: bytes[entry.start..<entry.end])
        }
    }
}

extension JSONTape.Value: JSONReadable {
    var typeName: String {
        switch entry.kind {
        case .null: "null"
        case .false, .true: "boolean"
        case .number: "number"
        case .asciiString, .utf8String, .escapedString: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    var isNull: Bool { entry.kind == .null }

    var isObject: Bool { entry.kind == .object }

    var string: String? {
        switch entry.kind {
        case .asciiString, .utf8String, .escapedString: text
        default: nil
        }
    }

    var bool: Bool? {
        switch entry.kind {
        case .true: true
        case .false: false
        default: nil
        }
    }

    var numberLiteral: String? { entry.kind == .number ? literal : nil }

    func member(_ key: MemberKey) -> JSONTape.Value? {
        guard entry.kind == .object else { return nil }
        let members = entry.count
        return key.literal.withUTF8Buffer { utf8 in
            var name = firstName
            for _ in 0..<members {
                let names = entries[name]
                if names.kind == .asciiString, key.literal.isASCII {
                    // Two ASCII texts are equal exactly when their bytes are; most names differ in their length.
                    if names.end - names.start == utf8.count,
                        JSONTape.same(UnsafeBufferPointer(rebasing: bytes[names.start..<names.end]), utf8)
                    {
                        return at(name + 1)
                    }
                } else if at(name).text == key.description {
                    return at(name + 1)
                }
                name = self.name(after: name)
            }
            return nil
        }
    }

    var elements: JSONTape.Elements? { entry.kind == .array ? JSONTape.Elements(array: self) : nil }

    var tree: JSONValue {
        switch entry.kind {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .number: return .number(literal)
        case .asciiString, .utf8String, .escapedString: return .string(text)
        case .array: return .array(elements?.map(\.tree) ?? [])
        case .object:
            var members: [JSONMember] = []
            members.reserveCapacity(entry.count)
            var name = firstName
            for _ in 0..<entry.count {
                members.append(JSONMember(at(name).text, at(name + 1).tree))
                name = self.name(after: name)
            }
            return .object(members)
        }
    }
}
