/// Appends JSON text to a byte buffer: objects with string, number, boolean and null members.
/// Receipts are written with it directly, one allocation per record.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject(_ key: String? = nil) {
        if let key { writeKey(key) } else { separate() }
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func string(_ key: String, _ value: String?) {
        writeKey(key)
        guard let value else { return null() }
        writeString(value)
    }

    mutating func integer(_ key: String, _ value: Int64?) {
        writeKey(key)
        guard let value else { return null() }
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A number with at most three decimals, like `12.5`.
    mutating func milliseconds(_ key: String, _ value: Double?) {
        writeKey(key)
        guard let value, value.isFinite else { return null() }
        let thousandths = Int64((value * 1000).rounded())
        var text = String(thousandths / 1000)
        let fraction = abs(thousandths % 1000)
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            if thousandths < 0, thousandths / 1000 == 0 { text = "-0" }
            text += "." + digits
        }
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func null() {
        bytes.append(contentsOf: "null".utf8)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    private mutating func writeKey(_ key: String) {
        separate()
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
