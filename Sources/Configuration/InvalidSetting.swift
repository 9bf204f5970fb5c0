/// A setting from the environment that cannot be used; its description is the one line to print at start.
public struct InvalidSetting: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable, e.g. `PUSH_HTTP_PORT`.
    public var variable: String
    /// Why the value cannot be used.
    public var reason: String

    public init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    public var description: String { "invalid \(variable): \(reason)" }
}
