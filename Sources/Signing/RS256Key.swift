/// An RSA private key that makes RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256), e.g. a Google service account's.
public final class RS256Key: Sendable {
    private let key: PrivateKey

    /// Loads the key from PEM text (the service account's `private_key`). `label` names the key in errors.
    public init(pem: String, label: String = "the RS256 key") throws(SigningError) {
        key = try PrivateKey(pem: pem, expecting: .rsa, label: label)
    }

    /// Signs `message` and returns the signature, as long as the key's modulus.
    public func sign(_ message: [UInt8]) throws(SigningError) -> [UInt8] {
        try key.signSHA256(message)
    }
}
