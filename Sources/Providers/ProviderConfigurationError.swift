/// A provider setting that cannot be used: names the setting and the reason, never a secret's contents.
public struct ProviderConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The setting or field at fault, e.g. `APNS_KEY_FILE` or `private_key`.
    public var field: String
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
