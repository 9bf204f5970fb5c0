internal import COpenSSL

/// The OpenSSL objects every Web Push encryption shares, made once: the P-256 group, an HMAC-SHA-256 context to copy
/// and the AES-128-GCM cipher, so that no message pays for a group's construction or a provider lookup.
///
/// `@unchecked Sendable`: nothing changes them after `init`; OpenSSL only reads them (a key copies the group, an HMAC
/// copies the context, a cipher context references the cipher).
final class WebPushCrypto: @unchecked Sendable {
    let group: OpaquePointer
    let hmacTemplate: OpaquePointer
    let aes128GCM: OpaquePointer

    /// The one set; `nil` (every encryption failing) only if OpenSSL cannot make them.
    static let shared = WebPushCrypto()

    private init?() {
        guard let group = copenssl_p256_group(), let hmacTemplate = copenssl_hmac_sha256_template(),
            let aes128GCM = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
        else { return nil }
        self.group = group
        self.hmacTemplate = hmacTemplate
        self.aes128GCM = aes128GCM
    }

    /// The shared set, or the error of every encryption when OpenSSL could not make it.
    static func get() throws(SigningError) -> WebPushCrypto {
        guard let shared else { throw SigningError(.signingFailed, "OpenSSL has no P-256, HMAC or AES-128-GCM") }
        return shared
    }
}

/// The one owner of a P-256 key pair (`EC_KEY`) for ECDH: Web Push's per-message sender key, freed on `deinit`.
///
/// `@unchecked Sendable`: the key is never mutated after `init`.
final class P256Key: @unchecked Sendable {
    let key: OpaquePointer

    private init(_ key: OpaquePointer) {
        self.key = key
    }

    deinit {
        copenssl_ec_key_free(key)
    }

    /// A fresh key pair from OpenSSL's random generator.
    static func generate() throws(SigningError) -> P256Key {
        let group = try WebPushCrypto.get().group
        ERR_clear_error()
        guard let key = copenssl_ec_generate(group) else {
            throw SigningError(.signingFailed, "could not generate a P-256 key (\(drainOpenSSLErrors()))")
        }
        return P256Key(key)
    }

    /// The key pair of a 32-byte private scalar (a fixed key, for the RFCs' test vectors).
    static func privateKey(scalar: [UInt8]) throws(SigningError) -> P256Key {
        guard scalar.count == 32 else { throw SigningError(.unreadableKey, "a P-256 private key has 32 bytes") }
        let group = try WebPushCrypto.get().group
        ERR_clear_error()
        guard let key = copenssl_ec_private_key(group, scalar, scalar.count) else {
            throw SigningError(.unreadableKey, "the key is not a P-256 private key (\(drainOpenSSLErrors()))")
        }
        return P256Key(key)
    }

    /// The public point, uncompressed (65 bytes).
    func publicPoint() throws(SigningError) -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 65)
        let length = point.withUnsafeMutableBufferPointer { copenssl_ec_public_point(key, $0.baseAddress, $0.count) }
        guard length == 65 else { throw SigningError(.signingFailed, "could not export the P-256 public key") }
        return point
    }

    /// The uncompressed public point of any EC key OpenSSL holds as an `EVP_PKEY` (the VAPID key).
    static func publicPoint(of key: OpaquePointer) throws(SigningError) -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 65)
        let length = point.withUnsafeMutableBufferPointer { copenssl_public_point(key, $0.baseAddress, $0.count) }
        guard length == 65 else { throw SigningError(.signingFailed, "could not export the P-256 public key") }
        return point
    }

    /// The ECDH shared secret of this private key and `peer`: the x coordinate, 32 bytes. The peer is not validated
    /// again: `P256Point` checked it is on the curve, and P-256's cofactor is 1, so that is the whole check.
    func sharedSecret(with peer: P256Point) throws(SigningError) -> [UInt8] {
        ERR_clear_error()
        var secret = [UInt8](repeating: 0, count: 32)
        guard copenssl_ecdh(key, peer.point, &secret) == 1 else {
            throw SigningError(.signingFailed, "ECDH failed (\(drainOpenSSLErrors()))")
        }
        return secret
    }
}

/// The one owner of a P-256 point (`EC_POINT`): a subscription's `p256dh`, checked to be on the curve, freed on
/// `deinit`.
///
/// `@unchecked Sendable`: the point is never mutated after `init`.
final class P256Point: @unchecked Sendable {
    let point: OpaquePointer

    /// The point of an uncompressed encoding (`0x04‖x‖y`); throws when it is not a point of the curve.
    init(uncompressed octets: [UInt8]) throws(SigningError) {
        let group = try WebPushCrypto.get().group
        ERR_clear_error()
        guard octets.count == 65, octets[0] == 0x04, let point = copenssl_ec_point(group, octets, octets.count) else {
            throw SigningError(
                .unreadableKey, "the key is not an uncompressed P-256 point (\(drainOpenSSLErrors()))")
        }
        self.point = point
    }

    deinit {
        EC_POINT_free(point)
    }
}
