/// One header field of a request or response. Names are compared case-insensitively by `HTTPResponse.header(_:)`.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
