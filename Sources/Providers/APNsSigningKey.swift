import Essentials
import Signing

/// An APNs token-auth signing key (`.p8`) with its key id and team id.
public struct APNsSigningKey: Sendable {
    let key: ES256Key
    /// The 10-character key id (`kid`).
    public let keyId: String
    /// The 10-character team id (`iss`).
    public let teamId: String
    /// The team, the key id and a digest of the key's PEM: one signer per identity (`APNsTokenSigners`).
    let identity: String

    /// A key from the `.p8` file's PEM text.
    public init(pem: String, keyId: String, teamId: String) throws(ProviderConfigurationError) {
        guard !keyId.isEmpty else { throw ProviderConfigurationError(field: "APNS_KEY_ID", reason: "is empty") }
        guard !teamId.isEmpty else { throw ProviderConfigurationError(field: "APNS_TEAM_ID", reason: "is empty") }
        do {
            key = try ES256Key(pem: pem, label: "the APNs key")
        } catch {
            throw ProviderConfigurationError(field: "APNS_KEY_FILE", reason: error.message)
        }
        self.keyId = keyId
        self.teamId = teamId
        identity = "\(teamId)/\(keyId)/\(SHA256.hexDigest(pem))"
    }
}
