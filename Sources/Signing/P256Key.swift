internal import COpenSSL

/// The one owner of a P-256 key (`EVP_PKEY`) for ECDH: Web Push's per-message sender key (private) or a
/// subscription's `p256dh` (public only), freed on `deinit`.
///
/// `@unchecked Sendable`: the key is never mutated after `init`, and each derivation uses its own `EVP_PKEY_CTX`.
final class P256Key: @unchecked Sendable {
    /// The DER `ECPrivateKey` (RFC 5915) of a P-256 key up to its 32-byte scalar, and the curve after it.
    private static let privateKeyPrefix: [UInt8] = [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20]
    private static let privateKeyCurve: [UInt8] = [
        0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07,
    ]

    let key: OpaquePointer

    private init(_ key: OpaquePointer) {
        self.key = key
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// A fresh key pair from OpenSSL's random generator.
    static func generate() throws(SigningError) -> P256Key {
        ERR_clear_error()
        guard let key = copenssl_generate_p256() else {
            throw SigningError(.signingFailed, "could not generate a P-256 key (\(drainOpenSSLErrors()))")
        }
        return P256Key(key)
    }

    /// The public key of an uncompressed point (`0x04‖x‖y`); throws when it is not a point of the curve.
    static func publicKey(point: [UInt8]) throws(SigningError) -> P256Key {
        ERR_clear_error()
        guard point.count == 65, point[0] == 0x04, let key = copenssl_p256_public_key(point, point.count) else {
            throw SigningError(
                .unreadableKey, "the key is not an uncompressed P-256 point (\(drainOpenSSLErrors()))")
        }
        return P256Key(key)
    }

    /// The key pair of a 32-byte private scalar (a fixed key, for the RFCs' test vectors).
    static func privateKey(scalar: [UInt8]) throws(SigningError) -> P256Key {
        guard scalar.count == 32 else { throw SigningError(.unreadableKey, "a P-256 private key has 32 bytes") }
        ERR_clear_error()
        let der = privateKeyPrefix + scalar + privateKeyCurve
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let decoded else {
            throw SigningError(.unreadableKey, "the key is not a P-256 private key (\(drainOpenSSLErrors()))")
        }
        return P256Key(decoded)
    }

    /// The public point, uncompressed (65 bytes).
    func publicPoint() throws(SigningError) -> [UInt8] {
        try Self.publicPoint(of: key)
    }

    /// The uncompressed public point of any EC key OpenSSL holds (the VAPID key's too).
    static func publicPoint(of key: OpaquePointer) throws(SigningError) -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 65)
        let length = point.withUnsafeMutableBufferPointer { copenssl_public_point(key, $0.baseAddress, $0.count) }
        guard length == 65 else { throw SigningError(.signingFailed, "could not export the P-256 public key") }
        return point
    }

    /// The ECDH shared secret of this private key and `peer`'s public key: the x coordinate, 32 bytes.
    func sharedSecret(with peer: P256Key) throws(SigningError) -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_PKEY_CTX_new(key, nil) else {
            throw SigningError(.signingFailed, "could not allocate an ECDH context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var length = 32
        var secret = [UInt8](repeating: 0, count: 32)
        // The peer is not validated again: `publicKey(point:)` made it from a point of the curve, and P-256's
        // cofactor is 1, so that is the whole check (the full one costs another scalar multiplication).
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer_ex(context, peer.key, 0) == 1,
            EVP_PKEY_derive(context, &secret, &length) == 1, length == 32
        else {
            throw SigningError(.signingFailed, "ECDH failed (\(drainOpenSSLErrors()))")
        }
        return secret
    }
}
