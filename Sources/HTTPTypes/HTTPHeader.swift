/// One header field of a request or response. Names are compared case-insensitively by `HTTPResponse.header(_:)`.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension HTTPHeader {
    /// True when the header's name is `name`, compared case-insensitively as ASCII (header names are ASCII tokens);
    /// allocates nothing, and compares no byte of names of different lengths (most of the headers looked through).
    public func hasName(_ name: String) -> Bool {
        self.name.utf8.count == name.utf8.count && self.name.utf8.elementsEqualIgnoringASCIICase(name.utf8)
    }
}
