/// Why a key could not be loaded or a signature made. Messages name the problem, never key material.
public struct SigningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Equatable {
        /// The PEM text is not a private key OpenSSL can read.
        case unreadableKey
        /// The key is readable but of the wrong type or curve for the algorithm.
        case wrongKeyType
        /// OpenSSL failed while signing or hashing.
        case signingFailed
    }

    public var kind: Kind
    /// A readable explanation; never contains key bytes, PEM text or signatures.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind): \(message)" }
}
