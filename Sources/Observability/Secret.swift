/// A value that must never be printed: keys, JWTs, OAuth tokens, raw device tokens.
///
/// Its description, debug description and mirror all say `<redacted>`, so string interpolation, `print`,
/// `dump` and log metadata cannot leak it; code that needs the value reads `revealed` on purpose.
public struct Secret<Value: Sendable>: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret itself; read it only to hand it to the thing that needs it (a signer, an HTTP header).
    public let revealed: Value

    public init(_ value: Value) {
        revealed = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Secret: Equatable where Value: Equatable {}
