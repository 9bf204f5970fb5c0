/// One record header: a name and its bytes (`nil` for a header without a value).
public struct KafkaHeader: Hashable, Sendable {
    public let name: String
    public let value: [UInt8]?

    public init(name: String, value: [UInt8]?) {
        self.name = name
        self.value = value
    }

    /// A header whose value is the UTF-8 encoding of `text`.
    public init(name: String, text: String) {
        self.init(name: name, value: Array(text.utf8))
    }
}

extension Array where Element == KafkaHeader {
    /// The value of the first header named `name`.
    public func first(named name: String) -> [UInt8]? {
        first { $0.name == name }?.value ?? nil
    }
}
