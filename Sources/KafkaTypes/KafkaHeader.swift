/// One record header: a name and its bytes (`nil` for a header without a value).
public struct KafkaHeader: Hashable, Sendable {
    public var name: String
    public var value: [UInt8]?

    public init(name: String, value: [UInt8]?) {
        self.name = name
        self.value = value
    }

    /// A header whose value is the UTF-8 encoding of `text`.
    public init(name: String, text: String) {
        self.init(name: name, value: Array(text.utf8))
    }
}

extension [KafkaHeader] {
    /// The value of the first header named `name`.
    public func first(named name: String) -> [UInt8]? {
        first { $0.name == name }?.value ?? nil
    }

    /// The value of the first header named `name`, decoded as UTF-8 (empty for a header without a value).
    public func text(_ name: String) -> String? {
        first { $0.name == name }.map { String(decoding: $0.value ?? [], as: UTF8.self) }
    }
}
