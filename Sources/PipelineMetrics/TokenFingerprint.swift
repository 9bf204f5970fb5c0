public import Observability

/// Short, stable stand-ins for device tokens in logs: `sha256:` and the first 12 hex digits of the token's hash.
///
/// Built from the receipts' `tokenHash` (`sha256:` and 64 hex digits, Essentials' `SHA256.tokenHash`), so a log
/// line can be matched to its receipts while neither the token nor its full hash is ever written.
public enum TokenFingerprint {
    /// How many hex digits of the hash are kept: 48 bits, enough to tell one node's tokens apart in logs.
    public static let length = 12

    /// The fingerprint of a `sha256:<64 hex>` token hash; anything else (say, a raw token passed by mistake)
    /// gives `<redacted>`.
    public static func of(tokenHash: String) -> String {
        let prefix = "sha256:"
        let digits = tokenHash.utf8.dropFirst(prefix.utf8.count)
        guard tokenHash.hasPrefix(prefix), digits.count == 64,
            digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return "<redacted>" }
        return prefix + String(decoding: digits.prefix(length), as: UTF8.self)
    }
}

extension LogMetadataValue {
    /// A device token written only as its short fingerprint (`sha256:` and 12 hex digits), from its receipt
    /// `tokenHash`; never the token itself.
    public static func token(hash tokenHash: String) -> LogMetadataValue {
        .string(TokenFingerprint.of(tokenHash: tokenHash))
    }
}
