/// Appends compact JSON to a byte buffer in the order it is called, so output is deterministic and allocation-light.
///
/// Commas are placed automatically: after a value or a closed container the next key or value gets one. Strings
/// are escaped as JSON requires (quote, backslash, control characters as `\n`, `\r`, `\t` or `\u00xx`) and
/// otherwise kept as UTF-8. Every JSON output of the service is written with it: payloads, receipts, records,
/// reports and log lines.
///
/// Each call appends its whole text at once (a member's comma, key and value together), measured first and then
/// written in place: appending it a part at a time checked the buffer's uniqueness and room once a part, which cost
/// more than the bytes.
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
        open(UInt8(ascii: "{"))
    }

    /// Closes the innermost object.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Opens an array: values follow, then `endArray()`.
    public mutating func beginArray() {
        open(UInt8(ascii: "["))
    }

    /// Closes the innermost array.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key; the next call writes its value.
    public mutating func key(_ key: String) {
        key.withUTF8Bytes { appendQuoted($0, colon: true) }
        needsComma = false
    }

    /// Writes an object key given as a literal that needs no escape (ASCII without `"`, `\` or control
    /// characters): its bytes are copied as they are, without the scan `key(_:)` makes. For records written many
    /// times a second, such as receipts.
    public mutating func key(literal name: StaticString) {
        let (key, comma) = (Self.literal(name), needsComma)
        append(count: (comma ? 1 : 0) + key.count + 3) { out in
            _ = Self.write(key: key, at: Self.separate(out, comma))
        }
        needsComma = false
    }

    /// Writes `epochMillis` as an RFC 3339 string value with milliseconds (`RFC3339.format`), formatted in place.
    public mutating func timestamp(epochMillis: Int64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RFC3339.formattedLength + 2) { text in
            text[0] = UInt8(ascii: "\"")
            let length = RFC3339.format(
                epochMillis: epochMillis, into: UnsafeMutableBufferPointer(rebasing: text[1...]))
            text[length + 1] = UInt8(ascii: "\"")
            append(UnsafeBufferPointer(rebasing: text[...(length + 1)]))
        }
        needsComma = true
    }

    /// Writes a string value.
    public mutating func string(_ value: String) {
        value.withUTF8Bytes { appendQuoted($0) }
        needsComma = true
    }

    /// Writes UTF-8 `text` as a string value, escaped as `string(_:)` escapes: JSON text written by another writer
    /// carried as a string (FCM's data values), without making a `String` of it first.
    public mutating func string(utf8 text: [UInt8]) {
        text.withUnsafeBufferPointer { appendQuoted($0) }
        needsComma = true
    }

    /// Writes an integer value.
    public mutating func integer(_ value: Int) {
        integer(Int64(value))
    }

    /// Writes an integer value.
    public mutating func integer(_ value: Int64) {
        // The digits from the last: at most 19 and a sign.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            guard let end = digits.baseAddress.map({ $0 + digits.count }) else { return }
            var first = end
            var rest = value.magnitude
            repeat {
                first -= 1
                first.initialize(to: UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            } while rest > 0
            if value < 0 {
                first -= 1
                first.initialize(to: UInt8(ascii: "-"))
            }
            append(UnsafeBufferPointer(start: first, count: end - first))
        }
        needsComma = true
    }

    /// Writes `literal` as it is: the caller guarantees it is a JSON number (`12`, `-0.5`, `1e300`).
    public mutating func number(literal: String) {
        literal.withUTF8Bytes { append($0) }
        needsComma = true
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        append(Self.literal(value ? "true" : "false"))
        needsComma = true
    }

    /// Writes `null`.
    public mutating func null() {
        append(Self.literal("null"))
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

    /// Writes `"key": "value"` with a key given as a literal that needs no escape (`key(literal:)`): the member in one
    /// append.
    public mutating func field(literal name: StaticString, _ value: String) {
        value.withUTF8Bytes { appendQuoted($0, afterKey: Self.literal(name)) }
        needsComma = true
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

    /// Whether `text` is written between the quotes as it is, with nothing to escape.
    public static func writesAsIs(_ text: String) -> Bool {
        text.withUTF8Bytes { escapedCount($0) == $0.count }
    }

    // MARK: Appending

    /// Appends `count` bytes, which `write` initializes from the address it is given: one check of the buffer's
    /// uniqueness and room for all of them.
    private mutating func append(count: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Void) {
        bytes.append(addingCapacity: count) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                guard let base = buffer.baseAddress else { return }
                write(base)
                initialized = count
            }
        }
    }

    /// Appends a value written as it is, `text`, after a comma where one is needed.
    private mutating func append(_ text: UnsafeBufferPointer<UInt8>) {
        let comma = needsComma
        append(count: (comma ? 1 : 0) + text.count) { out in
            Self.write(text, at: Self.separate(out, comma))
        }
    }

    /// Appends `utf8` quoted and escaped: after a comma where one is needed and `key` (a literal) when given, and
    /// followed by a colon when it is a key itself (`colon`).
    private mutating func appendQuoted(
        _ utf8: UnsafeBufferPointer<UInt8>, afterKey key: UnsafeBufferPointer<UInt8>? = nil, colon: Bool = false
    ) {
        let (escaped, comma) = (Self.escapedCount(utf8), needsComma)
        let count = (comma ? 1 : 0) + (key.map { $0.count + 3 } ?? 0) + escaped + 2 + (colon ? 1 : 0)
        append(count: count) { out in
            var at = Self.separate(out, comma)
            if let key { at = Self.write(key: key, at: at) }
            at.initialize(to: UInt8(ascii: "\""))
            at = Self.writeEscaping(utf8, escapedCount: escaped, at: at + 1)
            at.initialize(to: UInt8(ascii: "\""))
            if colon { (at + 1).initialize(to: UInt8(ascii: ":")) }
        }
    }

    /// Opens a container with `bracket`, after a comma where one is needed.
    private mutating func open(_ bracket: UInt8) {
        let comma = needsComma
        append(count: comma ? 2 : 1) { out in Self.separate(out, comma).initialize(to: bracket) }
        needsComma = false
    }

    /// Writes the comma a value or key needs at `out` when `comma`; returns where the rest goes.
    private static func separate(_ out: UnsafeMutablePointer<UInt8>, _ comma: Bool) -> UnsafeMutablePointer<UInt8> {
        guard comma else { return out }
        out.initialize(to: UInt8(ascii: ","))
        return out + 1
    }

    // MARK: Writing in place

    private static func literal(_ text: StaticString) -> UnsafeBufferPointer<UInt8> {
        let utf8 = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        assert(!utf8.contains(where: needsEscape))
        return utf8
    }

    /// Writes `bytes` at `out`; returns the address past them.
    @discardableResult
    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, at out: UnsafeMutablePointer<UInt8>)
        -> UnsafeMutablePointer<UInt8>
    {
        if let base = bytes.baseAddress { out.initialize(from: base, count: bytes.count) }
        return out + bytes.count
    }

    /// Writes `"key":` at `out` for a key that needs no escape; returns the address past it.
    private static func write(key: UnsafeBufferPointer<UInt8>, at out: UnsafeMutablePointer<UInt8>)
        -> UnsafeMutablePointer<UInt8>
    {
        out.initialize(to: UInt8(ascii: "\""))
        let end = write(key, at: out + 1)
        end.initialize(to: UInt8(ascii: "\""))
        (end + 1).initialize(to: UInt8(ascii: ":"))
        return end + 2
    }

    /// Whether a byte of a string must be escaped: a quote, a backslash or a control character.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The bytes `byte`'s escape takes: two for a quote, a backslash, `\n`, `\r` and `\t`, six (`\u00xx`) for the
    /// other control characters.
    private static func escapeLength(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): 2
        default: 6
        }
    }

    /// The length of `utf8` escaped, without quotes: eight bytes at a time are tested at once and skipped while none
    /// needs an escape (most texts have none).
    private static func escapedCount(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = utf8.baseAddress else { return 0 }
        var count = utf8.count
        var index = 0
        while index < utf8.count {
            if utf8.count - index >= 8,
                !StringWord.endsFastPath(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            if needsEscape(base[index]) { count += escapeLength(base[index]) - 1 }
            index += 1
        }
        return count
    }

    /// Writes `utf8` escaped at `out`, `escapedCount` bytes (`escapedCount(utf8)`): at once when nothing needs an
    /// escape, else in runs between the escapes. Returns the address past it.
    private static func writeEscaping(
        _ utf8: UnsafeBufferPointer<UInt8>, escapedCount: Int, at out: UnsafeMutablePointer<UInt8>
    ) -> UnsafeMutablePointer<UInt8> {
        guard escapedCount != utf8.count, let base = utf8.baseAddress else { return write(utf8, at: out) }
        var at = out
        var runStart = 0
        for index in 0..<utf8.count where needsEscape(base[index]) {
            at = write(UnsafeBufferPointer(start: base + runStart, count: index - runStart), at: at)
            at = writeEscape(of: base[index], at: at)
            runStart = index + 1
        }
        return write(UnsafeBufferPointer(start: base + runStart, count: utf8.count - runStart), at: at)
    }

    /// Writes the escape of `byte` at `out`, `escapeLength(byte)` bytes; returns the address past it.
    private static func writeEscape(of byte: UInt8, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8>
    {
        out.initialize(to: UInt8(ascii: "\\"))
        let short: UInt8? =
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
            case UInt8(ascii: "\n"): UInt8(ascii: "n")
            case UInt8(ascii: "\r"): UInt8(ascii: "r")
            case UInt8(ascii: "\t"): UInt8(ascii: "t")
            default: nil
            }
        if let short {
            (out + 1).initialize(to: short)
            return out + 2
        }
        let hexDigits: StaticString = "0123456789abcdef"
        (out + 1).initialize(to: UInt8(ascii: "u"))
        (out + 2).initialize(to: UInt8(ascii: "0"))
        (out + 3).initialize(to: UInt8(ascii: "0"))
        (out + 4).initialize(to: hexDigits.utf8Start[Int(byte >> 4)])
        (out + 5).initialize(to: hexDigits.utf8Start[Int(byte & 0xF)])
        return out + 6
    }
}
