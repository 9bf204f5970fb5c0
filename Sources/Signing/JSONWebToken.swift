import Essentials

/// Compact JWS tokens (`header.claims.signature`, each base64url) for APNs provider tokens, Google OAuth assertions
/// and Web Push's VAPID. Header and claims are written by `JSONWriter`, their members in name order.
public enum JSONWebToken {
    /// The APNs provider token: header `{"alg":"ES256","kid":keyId}`, claims `{"iat":issuedAt,"iss":teamId}`.
    public static func apnsProviderToken(
        key: ES256Key, keyId: String, teamId: String, issuedAt: Int
    ) throws(SigningError) -> String {
        try compact(header: header(alg: "ES256", kid: keyId, typ: nil), sign: key.sign) { claims in
            claims.field("iat", issuedAt)
            claims.field("iss", teamId)
        }
    }

    /// A Google service-account assertion for the OAuth2 JWT-bearer grant (RFC 7523), valid for `lifetime` seconds.
    public static func googleAssertion(
        key: RS256Key, keyId: String?, issuer: String, scope: String, audience: String, issuedAt: Int,
        lifetime: Int = 3600
    ) throws(SigningError) -> String {
        try compact(header: header(alg: "RS256", kid: keyId, typ: "JWT"), sign: key.sign) { claims in
            claims.field("aud", audience)
            claims.field("exp", issuedAt + lifetime)
            claims.field("iat", issuedAt)
            claims.field("iss", issuer)
            claims.field("scope", scope)
        }
    }

    /// A VAPID token (RFC 8292 §2): header `{"alg":"ES256","typ":"JWT"}`, claims `aud` (the push service's origin),
    /// `exp` (epoch seconds, at most 24 hours ahead) and `sub` (a `mailto:` or `https:` contact).
    public static func vapid(key: ES256Key, audience: String, expiresAt: Int, subject: String) throws(SigningError)
        -> String
    {
        try compact(header: header(alg: "ES256", kid: nil, typ: "JWT"), sign: key.sign) { claims in
            claims.field("aud", audience)
            claims.field("exp", expiresAt)
            claims.field("sub", subject)
        }
    }

    /// The header's JSON: `alg`, then `kid` and `typ` where given.
    private static func header(alg: String, kid: String?, typ: String?) -> [UInt8] {
        var header = JSONWriter(reservingCapacity: 64)
        header.beginObject()
        header.field("alg", alg)
        if let kid { header.field("kid", kid) }
        if let typ { header.field("typ", typ) }
        header.endObject()
        return header.bytes
    }

    private static func compact(
        header: [UInt8], sign: ([UInt8]) throws(SigningError) -> [UInt8], claims write: (inout JSONWriter) -> Void
    ) throws(SigningError) -> String {
        var claims = JSONWriter(reservingCapacity: 256)
        claims.beginObject()
        write(&claims)
        claims.endObject()
        let signingInput = "\(Base64URL.encode(header)).\(Base64URL.encode(claims.bytes))"
        return "\(signingInput).\(Base64URL.encode(try sign(Array(signingInput.utf8))))"
    }
}
