/// Appends compact JSON to a byte buffer in the order it is called, so output is deterministic and allocation-light.
///
/// Commas are placed automatically: after a value or a closed container the next key or value gets one. Strings
/// are escaped as JSON requires (quote, backslash, control characters as `\n`, `\r`, `\t` or `\u00xx`) and
/// otherwise kept as UTF-8. Every JSON output of the service is written with it: payloads, receipts, records,
/// reports and log lines.
public struct JSONWriter: Sendable {
    /// The JSON written so far.
    public private(set) var bytes: [UInt8]
    private var needsComma = false

    /// An empty writer with room for `capacity` bytes.
    public init(reservingCapacity capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object: keys and values follow, then `endObject()`.
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes the innermost object.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Opens an array: values follow, then `endArray()`.
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Closes the innermost array.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key; the next call writes its value.
    public mutating func key(_ key: String) {
        separate()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes an object key given as a literal that needs no escape (ASCII without `"`, `\` or control
    /// characters): its bytes are copied as they are, without the scan `key(_:)` makes. For records written many
    /// times a second, such as receipts.
    public mutating func key(literal name: StaticString) {
        let utf8 = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        assert(!utf8.contains(where: Self.needsEscape))
        // `,"name":` in one append: each append checks the buffer's uniqueness and room, and a key was five.
        let first = needsComma ? 0 : 1
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utf8.count + 4) { text in
            text[0] = UInt8(ascii: ",")
            text[1] = UInt8(ascii: "\"")
            _ = UnsafeMutableBufferPointer(rebasing: text[2..<2 + utf8.count]).initialize(fromContentsOf: utf8)
            text[utf8.count + 2] = UInt8(ascii: "\"")
            text[utf8.count + 3] = UInt8(ascii: ":")
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[first...]))
        }
        needsComma = false
    }

    /// Writes `epochMillis` as an RFC 3339 string value with milliseconds (`RFC3339.format`), formatted in place.
    public mutating func timestamp(epochMillis: Int64) {
        separate()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RFC3339.formattedLength) { text in
            bytes.append(UInt8(ascii: "\""))
            bytes.append(
                contentsOf: UnsafeBufferPointer(rebasing: text[..<RFC3339.format(epochMillis: epochMillis, into: text)])
            )
            bytes.append(UInt8(ascii: "\""))
        }
        needsComma = true
    }

    /// Writes a string value.
    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    /// Writes UTF-8 `text` as a string value, escaped as `string(_:)` escapes: JSON text written by another writer
    /// carried as a string (FCM's data values), without making a `String` of it first.
    public mutating func string(utf8 text: [UInt8]) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        text.withUnsafeBufferPointer { appendEscaping($0) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes an integer value.
    public mutating func integer(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Writes an integer value.
    public mutating func integer(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Writes `literal` as it is: the caller guarantees it is a JSON number (`12`, `-0.5`, `1e300`).
    public mutating func number(literal: String) {
        separate()
        bytes.append(contentsOf: literal.utf8)
        needsComma = true
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// Writes `null`.
    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Writes `"key": "value"`.
    public mutating func field(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes `"key": value` for an integer.
    public mutating func field(_ name: String, _ value: Int) {
        key(name)
        integer(value)
    }

    /// Writes `"key": "value"` with a key given as a literal that needs no escape (`key(literal:)`).
    public mutating func field(literal name: StaticString, _ value: String) {
        key(literal: name)
        string(value)
    }

    /// Writes `"key": value` for an integer, with a key given as a literal that needs no escape (`key(literal:)`).
    public mutating func field(literal name: StaticString, _ value: Int) {
        key(literal: name)
        integer(value)
    }

    /// Writes an array of strings.
    public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// The bytes written so far, as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// A JSON string literal for `text`, quotes included.
    public static func quoted(_ text: String) -> String {
        var writer = JSONWriter(reservingCapacity: text.utf8.count + 2)
        writer.string(text)
        return writer.text
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Whether a byte of a string must be escaped: a quote, a backslash or a control character.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether `text` is written between the quotes as it is, with nothing to escape.
    public static func writesAsIs(_ text: String) -> Bool {
        text.withUTF8Bytes { !$0.contains(where: needsEscape) }
    }

    /// Quotes `text`: runs of bytes that need no escape are copied at once (the common case is one run). A native
    /// string's bytes are read where they lie.
    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        text.withUTF8Bytes { appendEscaping($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `utf8`, escaping what JSON requires, without the quotes: eight bytes at a time are tested at once and
    /// skipped while none needs an escape (most texts have none), then copied in runs.
    private mutating func appendEscaping(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var runStart = 0
        var index = 0
        while index < count {
            if count - index >= 8,
                !StringWord.endsFastPath(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = base[index]
            if Self.needsEscape(byte) {
                bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                appendEscaped(byte)
                runStart = index + 1
            }
            index += 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0xF)])
        }
    }
}
