import Essentials
import Signing

/// An app's VAPID identity (RFC 8292): its P-256 key and the contact the push services may write to.
public struct VAPIDKey: Sendable {
    let key: ES256Key
    /// The public key in base64url: the `k` of the `Authorization` header, and what a page passes to
    /// `pushManager.subscribe` as `applicationServerKey`.
    public let publicKey: String
    /// A `mailto:` or `https:` URI (the JWT's `sub`).
    public let subject: String

    /// A key from PEM text (`WEBPUSH_VAPID_KEY_FILE`) and its subject (`WEBPUSH_VAPID_SUBJECT`).
    public init(pem: String, subject: String) throws(ProviderConfigurationError) {
        guard Self.isContact(subject) else {
            throw ProviderConfigurationError(
                field: "WEBPUSH_VAPID_SUBJECT", reason: "must be a mailto: or https: URI of printable ASCII")
        }
        do {
            key = try ES256Key(pem: pem, label: "the VAPID key")
            publicKey = Base64URL.encode(try key.publicKey())
        } catch {
            throw ProviderConfigurationError(field: "WEBPUSH_VAPID_KEY_FILE", reason: error.message)
        }
        self.subject = subject
    }

    /// Whether `subject` is a `mailto:` or `https:` URI: at most 256 printable ASCII characters after the scheme.
    static func isContact(_ subject: String) -> Bool {
        let bytes = subject.utf8
        guard bytes.count <= 256, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        return (subject.hasPrefix("mailto:") && subject.utf8.count > 7)
            || (subject.hasPrefix("https://") && subject.utf8.count > 8)
    }
}
