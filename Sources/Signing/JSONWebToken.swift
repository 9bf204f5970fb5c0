import Essentials
import Foundation

/// Compact JWS tokens (`header.claims.signature`, each base64url) for APNs provider tokens, Google OAuth assertions
/// and Web Push's VAPID.
public enum JSONWebToken {
    /// The APNs provider token: header `{"alg":"ES256","kid":keyId}`, claims `{"iss":teamId,"iat":issuedAt}`.
    public static func apnsProviderToken(
        key: ES256Key, keyId: String, teamId: String, issuedAt: Int
    ) throws(SigningError) -> String {
        try compact(
            header: Header(alg: "ES256", kid: keyId, typ: nil),
            claims: APNsClaims(iss: teamId, iat: issuedAt),
            sign: key.sign
        )
    }

    /// A Google service-account assertion for the OAuth2 JWT-bearer grant (RFC 7523), valid for `lifetime` seconds.
    public static func googleAssertion(
        key: RS256Key, keyId: String?, issuer: String, scope: String, audience: String, issuedAt: Int,
        lifetime: Int = 3600
    ) throws(SigningError) -> String {
        try compact(
            header: Header(alg: "RS256", kid: keyId, typ: "JWT"),
            claims: GoogleClaims(iss: issuer, scope: scope, aud: audience, iat: issuedAt, exp: issuedAt + lifetime),
            sign: key.sign
        )
    }

    /// A VAPID token (RFC 8292 §2): header `{"alg":"ES256","typ":"JWT"}`, claims `aud` (the push service's origin),
    /// `exp` (epoch seconds, at most 24 hours ahead) and `sub` (a `mailto:` or `https:` contact).
    public static func vapid(key: ES256Key, audience: String, expiresAt: Int, subject: String) throws(SigningError)
        -> String
    {
        try compact(
            header: Header(alg: "ES256", kid: nil, typ: "JWT"),
            claims: VAPIDClaims(aud: audience, exp: expiresAt, sub: subject),
            sign: key.sign
        )
    }

    private struct Header: Encodable {
        var alg: String
        var kid: String?
        var typ: String?
    }

    private struct APNsClaims: Encodable {
        var iss: String
        var iat: Int
    }

    private struct VAPIDClaims: Encodable {
        var aud: String
        var exp: Int
        var sub: String
    }

    private struct GoogleClaims: Encodable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int
    }

    private static func compact(
        header: some Encodable, claims: some Encodable, sign: ([UInt8]) throws(SigningError) -> [UInt8]
    ) throws(SigningError) -> String {
        let signingInput = "\(Base64URL.encode(try json(header))).\(Base64URL.encode(try json(claims)))"
        return "\(signingInput).\(Base64URL.encode(try sign(Array(signingInput.utf8))))"
    }

    private static func json(_ value: some Encodable) throws(SigningError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw SigningError(.signingFailed, "could not encode the token's JSON")
        }
    }
}
