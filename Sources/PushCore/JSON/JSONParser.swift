/// Why bytes are not a JSON document: the byte offset, the path of the value it happened in, and the reason.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    /// The member or element the error is in, e.g. `recipients[0].badge`; empty for the document itself.
    public var path = ""
    public var reason: String

    public init(offset: Int, path: String = "", reason: String) {
        self.offset = offset
        self.path = path
        self.reason = reason
    }

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }

    /// The longest member name a path shows, in characters; longer ones are cut and end in `…`.
    public static let maximumNameLength = 64

    /// The same error seen from the object that holds it as member `name`.
    ///
    /// Names come from the document, so the path shows at most `maximumNameLength` characters of each, with control
    /// characters as `?`: an error stays short and printable whatever the input.
    func inMember(_ name: String) -> JSONSyntaxError {
        let scalars = name.unicodeScalars
        var shown = String.UnicodeScalarView(
            scalars.prefix(Self.maximumNameLength).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 })
        if scalars.count > Self.maximumNameLength { shown.append("…") }
        let component = String(shown)
        var error = self
        error.path = path.isEmpty ? component : path.hasPrefix("[") ? component + path : "\(component).\(path)"
        return error
    }

    /// The same error seen from the array that holds it at `index`.
    func inElement(_ index: Int) -> JSONSyntaxError {
        var error = self
        error.path = path.isEmpty || path.hasPrefix("[") ? "[\(index)]\(path)" : "[\(index)].\(path)"
        return error
    }
}

/// A strict RFC 8259 parser (UTF-8 validated, no trailing garbage, bounded nesting, no duplicate member names)
/// into `JSONValue`.
///
/// Duplicate names are an error rather than "the last one wins": parsers disagree on which one wins, so a
/// document with them means different things to different readers.
public struct JSONParser {
    /// The deepest nesting accepted; deeper documents are rejected instead of exhausting the stack.
    public static let maximumDepth = 64

    /// The document, read in place: every read below is after a check of `index` against `bytes.count`.
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one complete JSON document.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) in
            var parser = JSONParser(buffer)
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.error("unexpected data after the document") }
            return value
        }
    }

    /// The bytes from `start` up to the current index.
    private func bytes(from start: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[start..<index])
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw error("unexpected character") }
        index += count
        return value
    }

    /// Consumes the opening bracket of an object or array, one level deeper.
    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        index += 1
    }

    /// Consumes `closing` and leaves the level when it is next; false otherwise.
    private mutating func leave(at closing: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: closing) else { return false }
        index += 1
        depth -= 1
        return true
    }

    /// After a member or element: consumes `,` (false, another one follows) or `closing` (true, the end).
    private mutating func endsAfterItem(closing: Unicode.Scalar) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input") }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            return false
        }
        guard leave(at: closing) else { throw error("expected ',' or '\(closing)'") }
        return true
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        var members: [JSONMember] = []
        skipWhitespace()
        if leave(at: "}") { return .object(members) }
        // Room for an event's usual objects at once, rather than growing 1, 2, 4, 8.
        members.reserveCapacity(8)
        var names = MemberNames()
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let nameOffset = index
            let key = try parseString()
            guard names.insert(key, into: members) else {
                throw JSONSyntaxError(offset: nameOffset, reason: "duplicate member name").inMember(key)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            do {
                members.append(JSONMember(key, try parseValue()))
            } catch {
                throw error.inMember(key)
            }
        } while try !endsAfterItem(closing: "}")
        return .object(members)
    }

    /// The member names of one object so far: a scan of the members while they are few, a set beyond.
    private struct MemberNames {
        static let scanLimit = 8
        private var set: Set<String> = []

        /// Whether `name` is new among `members` (the object's members so far); records it.
        mutating func insert(_ name: String, into members: [JSONMember]) -> Bool {
            if members.count < Self.scanLimit { return !members.contains { $0.key == name } }
            if set.isEmpty { set = Set(members.map(\.key)) }
            return set.insert(name).inserted
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        skipWhitespace()
        if leave(at: "]") { return .array(elements) }
        repeat {
            skipWhitespace()
            do {
                elements.append(try parseValue())
            } catch {
                throw error.inElement(elements.count)
            }
        } while try !endsAfterItem(closing: "]")
        return .array(elements)
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit after '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        return .number(String(decoding: bytes(from: start), as: UTF8.self))
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, so the bytes between the quotes are the string; all ASCII (ids, tokens, types), they
        // are valid UTF-8 by construction and need no validation.
        var bits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text: String
                if bits < 0x80 {
                    text = String(decoding: bytes(from: start), as: UTF8.self)
                } else {
                    guard let valid = String(validating: bytes(from: start), as: UTF8.self) else {
                        throw JSONSyntaxError(offset: start, reason: "string is not valid UTF-8")
                    }
                    text = valid
                }
                index += 1
                return text
            }
            bits |= byte
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("control character in string") }
            index += 1
        }
        var buffer = Array(bytes(from: start))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw JSONSyntaxError(offset: start, reason: "string is not valid UTF-8")
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try appendEscape(to: &buffer)
            case 0..<0x20:
                throw error("control character in string")
            default:
                buffer.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func appendEscape(to buffer: inout [UInt8]) throws(JSONSyntaxError) {
        guard index < bytes.count else { throw error("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in \\u escape") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired surrogate in \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            buffer.append(contentsOf: UTF8.encode(unicode).map { Array($0) } ?? [])
        default:
            throw error("invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
