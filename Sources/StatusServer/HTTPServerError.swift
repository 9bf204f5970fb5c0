/// Why an HTTP server could not start listening.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `host:port` that was asked for.
    public var address: String
    /// The system's reason, e.g. `Address already in use`.
    public var reason: String

    public init(address: String, reason: String) {
        self.address = address
        self.reason = reason
    }

    public var description: String { "cannot listen on \(address): \(reason)" }
}
