/// One value of log metadata: a string, a number, a boolean, or a nested list or map of values.
///
/// Written as JSON in log lines, so numbers stay numbers. Literals work directly:
/// `["kafka.partition": 3, "push.provider": "apns", "push.retry": true]`.
public enum LogMetadataValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case array([LogMetadataValue])
    case dictionary([String: LogMetadataValue])

    /// A value whose text never reaches a log line: it is written as `<redacted>`.
    public static func redacted<Value>(_ secret: Secret<Value>) -> LogMetadataValue {
        .string(secret.description)
    }

    /// Any value written through its `description`, e.g. an error.
    public static func describing(_ value: some CustomStringConvertible) -> LogMetadataValue {
        .string(value.description)
    }
}

extension LogMetadataValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension LogMetadataValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension LogMetadataValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension LogMetadataValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension LogMetadataValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: LogMetadataValue...) { self = .array(elements) }
}

extension LogMetadataValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, LogMetadataValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension LogMetadataValue {
    /// An integer value from any integer type (offsets, partitions, counts).
    public init(_ value: some BinaryInteger) {
        self = Int64(exactly: value).map(LogMetadataValue.integer) ?? .string(String(value))
    }
}
