/// A W3C Trace Context `traceparent` header (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`), carried
/// from an input record to its receipts, retry and dead-letter records so one message can be followed across
/// systems. Pure.
///
/// Only a well-formed value is carried: lower-case hex, a version other than `ff`, a trace id and a parent id
/// that are not all zeros. A later version may append fields; the 55 characters version 00 defines are kept.
public struct TraceParent: Sendable, Equatable, CustomStringConvertible {
    /// The header's name.
    public static let header = "traceparent"
    /// The length of a version-00 value, the part that is carried.
    static let length = 55

    /// The checked value, 55 ASCII characters.
    public let description: String

    /// The trace context of `text`, or `nil` when it is not a well-formed `traceparent`.
    public init?(_ text: String) {
        let bytes = Array(text.utf8.prefix(Self.length + 1))
        guard bytes.count >= Self.length, bytes.count == Self.length || bytes[Self.length] == UInt8(ascii: "-")
        else { return nil }
        let fields = [(0, 2), (3, 32), (36, 16), (53, 2)].map { bytes[$0.0..<($0.0 + $0.1)] }
        guard [2, 35, 52].allSatisfy({ bytes[$0] == UInt8(ascii: "-") }),
            fields.allSatisfy({ $0.allSatisfy(Self.isLowerHex) })
        else { return nil }
        let version = fields[0]
        guard version.elementsEqual("ff".utf8) == false,
            text.utf8.count == Self.length || !version.elementsEqual("00".utf8),
            fields[1].contains(where: { $0 != UInt8(ascii: "0") }),
            fields[2].contains(where: { $0 != UInt8(ascii: "0") })
        else { return nil }
        description = String(decoding: bytes[0..<Self.length], as: UTF8.self)
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
