/// A complete response: status, headers and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (compared case-insensitively, as ASCII) without surrounding spaces,
    /// tabs or line breaks.
    public func header(_ name: String) -> String? {
        guard let value = headers.first(where: { $0.hasName(name) })?.value else { return nil }
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = value.utf8.first, let last = value.utf8.last, isBlank(first) || isBlank(last) else {
            return value
        }
        var bytes = value.utf8[...]
        while let byte = bytes.first, isBlank(byte) { bytes.removeFirst() }
        while let byte = bytes.last, isBlank(byte) { bytes.removeLast() }
        return String(Substring(bytes))
    }
}
