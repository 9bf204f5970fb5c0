import Essentials
import Foundation

/// A JSON document read once, strictly, into a flat list of its values that point into the document's bytes.
///
/// The reading is RFC 8259's: UTF-8 validated, no trailing garbage, nesting bounded, no duplicate member names.
/// Duplicate names are an error rather than "the last one wins": parsers disagree on which one wins, so a document
/// with them means different things to different readers.
///
/// Nothing is copied out of the bytes while reading, except the rare string with escapes. A decoder then takes only
/// what it needs through `withRoot`: a chat-message event's fields become `String`s; its other members stay bytes.
/// `JSONParser` builds a `JSONValue` tree from a tape, for the readers that want one.
struct JSONTape {
    /// The deepest nesting accepted; deeper documents are rejected instead of exhausting the stack.
    static let maximumDepth = 64

    /// One value of the document, in document order. A container's entries follow it; an object's are each member's
    /// name (a string) and then its value. Offsets are kept in 32 bits (documents are shorter than 4 GiB).
    struct Entry {
        var kind: Kind
        private var storedStart: UInt32
        private var storedEnd: UInt32
        private var storedNext: UInt32
        /// A container's members or elements; an escaped string's index in `unescaped`.
        var word: UInt64

        init(kind: Kind, start: Int, end: Int, next: Int, word: UInt64) {
            self.kind = kind
            storedStart = UInt32(truncatingIfNeeded: start)
            storedEnd = UInt32(truncatingIfNeeded: end)
            storedNext = UInt32(truncatingIfNeeded: next)
            self.word = word
        }

        /// Where its bytes start: a string's after its opening quote, a number's at its first character.
        var start: Int { Int(storedStart) }

        /// Where its bytes end: a string's at its closing quote, a number's after its last digit.
        var end: Int {
            get { Int(storedEnd) }
            set { storedEnd = UInt32(truncatingIfNeeded: newValue) }
        }

        /// The index of the entry after this value and everything in it.
        var next: Int {
            get { Int(storedNext) }
            set { storedNext = UInt32(truncatingIfNeeded: newValue) }
        }

        /// A container's members or elements; an escaped string's index in `unescaped`.
        var count: Int { Int(truncatingIfNeeded: word) }
    }

    enum Kind: UInt8 {
        case null, `false`, `true`, number
        /// A string of ASCII characters only, without escapes: its bytes are its text.
        case asciiString
        /// A string without escapes with other characters too: its bytes (valid UTF-8) are its text.
        case utf8String
        /// A string with escapes: its text is in `unescaped`.
        case escapedString
        case array, object
    }

    let bytes: [UInt8]
    private(set) var entries: [Entry] = []
    /// The texts of the strings with escapes, in document order.
    private(set) var unescaped: [String] = []

    /// Reads one complete JSON document.
    init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        self.bytes = bytes
        guard bytes.count < UInt32.max else {
            throw JSONSyntaxError(offset: 0, reason: "document of \(bytes.count) bytes, more than 4 GiB")
        }
        // An event has about one value per 12 bytes (its tokens are long); growing past that is rare.
        entries.reserveCapacity(bytes.count / 8 + 8)
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) in
            var reader = Reader(buffer)
            reader.skipWhitespace()
            try reader.readValue(into: &self)
            reader.skipWhitespace()
            guard reader.index == buffer.count else { throw reader.error("unexpected data after the document") }
        }
    }

    /// Reads the document in place: `body` gets its root value, which is valid only during the call.
    func withRoot<Result, Failure: Error>(
        _ body: (JSONTape.Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try entries.withUnsafeBufferPointer { (entries) throws(Failure) in
            try bytes.withUnsafeBufferPointer { (bytes) throws(Failure) in
                try unescaped.withUnsafeBufferPointer { (unescaped) throws(Failure) in
                    try body(Value(entries: entries, bytes: bytes, unescaped: unescaped, index: 0))
                }
            }
        }
    }

    private mutating func append(_ kind: Kind, start: Int, end: Int, word: UInt64 = 0) {
        entries.append(Entry(kind: kind, start: start, end: end, next: entries.count + 1, word: word))
    }

    /// The strict reader over the document's bytes: every read is after a check of `index` against `bytes.count`.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var depth = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        func error(_ reason: String) -> JSONSyntaxError {
            JSONSyntaxError(offset: index, reason: reason)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func readValue(into tape: inout JSONTape) throws(JSONSyntaxError) {
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): try readObject(into: &tape)
            case UInt8(ascii: "["): try readArray(into: &tape)
            case UInt8(ascii: "\""): try readString(into: &tape)
            case UInt8(ascii: "t"): try readLiteral("true", .true, into: &tape)
            case UInt8(ascii: "f"): try readLiteral("false", .false, into: &tape)
            case UInt8(ascii: "n"): try readLiteral("null", .null, into: &tape)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try readNumber(into: &tape)
            default: throw error("unexpected character")
            }
        }

        private mutating func readLiteral(
            _ word: StaticString, _ kind: Kind, into tape: inout JSONTape
        ) throws(JSONSyntaxError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("unexpected end of input") }
            let matches = word.withUTF8Buffer { expected in
                (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
            }
            guard matches else { throw error("unexpected character") }
            tape.append(kind, start: index, end: index + count)
            index += count
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

        /// Consumes the opening bracket of a container, one level deeper, and appends its entry (returned: its
        /// items' entries follow it).
        private mutating func open(_ kind: Kind, into tape: inout JSONTape) throws(JSONSyntaxError) -> Int {
            depth += 1
            guard depth <= JSONTape.maximumDepth else {
                throw error("nested deeper than \(JSONTape.maximumDepth) levels")
            }
            let entry = tape.entries.count
            tape.append(kind, start: index, end: index)
            index += 1
            skipWhitespace()
            return entry
        }

        /// Closes the container entry at `entry` after its last item: where it ends, and how many items it has.
        private func close(_ entry: Int, items: Int, in tape: inout JSONTape) {
            tape.entries[entry].end = index
            tape.entries[entry].next = tape.entries.count
            tape.entries[entry].word = UInt64(items)
        }

        private mutating func readObject(into tape: inout JSONTape) throws(JSONSyntaxError) {
            let object = try open(.object, into: &tape)
            var members = 0
            var names = MemberNames()
            if !leave(at: "}") {
                repeat {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                        throw error("expected a member name")
                    }
                    let nameOffset = index
                    let name = tape.entries.count
                    try readString(into: &tape)
                    guard names.insert(name, of: object, in: tape, bytes: bytes) else {
                        throw JSONSyntaxError(offset: nameOffset, reason: "duplicate member name")
                            .inMember(tape.text(of: name))
                    }
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                    index += 1
                    skipWhitespace()
                    do {
                        try readValue(into: &tape)
                    } catch {
                        throw error.inMember(tape.text(of: name))
                    }
                    members += 1
                } while try !endsAfterItem(closing: "}")
            }
            close(object, items: members, in: &tape)
        }

        private mutating func readArray(into tape: inout JSONTape) throws(JSONSyntaxError) {
            let array = try open(.array, into: &tape)
            var elements = 0
            if !leave(at: "]") {
                repeat {
                    skipWhitespace()
                    do {
                        try readValue(into: &tape)
                    } catch {
                        throw error.inElement(elements)
                    }
                    elements += 1
                } while try !endsAfterItem(closing: "]")
            }
            close(array, items: elements, in: &tape)
        }

        private mutating func readNumber(into tape: inout JSONTape) throws(JSONSyntaxError) {
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
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw error("expected a digit in the exponent")
                }
                skipDigits()
            }
            tape.append(.number, start: start, end: index)
        }

        private func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        private mutating func skipDigits() {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }

        private mutating func readString(into tape: inout JSONTape) throws(JSONSyntaxError) {
            index += 1
            let start = index
            // Fast path: no escapes, so the bytes between the quotes are the string; all ASCII (ids, tokens, types),
            // they are valid UTF-8 by construction and need no validation.
            var bits: UInt8 = 0
            var words: UInt64 = 0
            if let base = UnsafeRawPointer(bytes.baseAddress) {
                while index + 8 <= bytes.count {
                    let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    guard !StringWord.endsFastPath(word) else { break }
                    words |= word
                    index += 8
                }
            }
            if !StringWord.isASCII(words) { bits = 0x80 }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    guard bits < 0x80 || String(validating: text, as: UTF8.self) != nil else {
                        throw JSONSyntaxError(offset: start, reason: "string is not valid UTF-8")
                    }
                    tape.append(bits < 0x80 ? .asciiString : .utf8String, start: start, end: index)
                    index += 1
                    return
                }
                bits |= byte
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw error("control character in string") }
                index += 1
            }
            var buffer = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: buffer, as: UTF8.self) else {
                        throw JSONSyntaxError(offset: start, reason: "string is not valid UTF-8")
                    }
                    tape.append(.escapedString, start: start, end: index, word: UInt64(tape.unescaped.count))
                    tape.unescaped.append(text)
                    index += 1
                    return
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
                var scalar = try readHex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate in \\u escape") }
                    index += 2
                    let low = try readHex4()
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

        private mutating func readHex4() throws(JSONSyntaxError) -> UInt32 {
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

    /// The member names of one object so far: a scan of the members while they are few, a set beyond.
    private struct MemberNames {
        static let scanLimit = 16
        private var count = 0
        private var set: Set<String> = []

        /// Whether the name at entry `name` is new among the members of the object at `object` so far; records it.
        /// `bytes` are the document's.
        mutating func insert(
            _ name: Int, of object: Int, in tape: JSONTape, bytes: UnsafeBufferPointer<UInt8>
        ) -> Bool {
            defer { count += 1 }
            if count < Self.scanLimit {
                // The names so far: the object's first entry, then each one after its member's value.
                var earlier = object + 1
                while earlier < name {
                    if tape.sameText(earlier, name, bytes: bytes) { return false }
                    earlier = tape.entries[earlier + 1].next
                }
                return true
            }
            if set.isEmpty {
                var earlier = object + 1
                while earlier < name {
                    set.insert(tape.text(of: earlier))
                    earlier = tape.entries[earlier + 1].next
                }
            }
            return set.insert(tape.text(of: name)).inserted
        }
    }

    /// The text of the string at `entry`.
    private func text(of entry: Int) -> String {
        withRoot { $0.at(entry).string ?? "" }
    }

    /// Whether the member names at `first` and `second` are the same text (as `String` compares them); `bytes` are
    /// the document's.
    private func sameText(_ first: Int, _ second: Int, bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let (one, other) = (entries[first], entries[second])
        guard one.kind == .asciiString, other.kind == .asciiString else { return text(of: first) == text(of: second) }
        // ASCII texts are equal exactly when their bytes are: most differ in their length already.
        return one.end - one.start == other.end - other.start
            && Self.same(
                UnsafeBufferPointer(rebasing: bytes[one.start..<one.end]),
                UnsafeBufferPointer(rebasing: bytes[other.start..<other.end]))
    }

    /// Whether two byte strings are equal.
    static func same(_ one: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard one.count == other.count else { return false }
        guard let first = one.baseAddress, let second = other.baseAddress else { return true }
        return memcmp(first, second, one.count) == 0
    }
}
