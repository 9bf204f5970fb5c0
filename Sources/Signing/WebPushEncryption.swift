internal import COpenSSL
import Synchronization

/// Web Push message encryption (RFC 8291): `aes128gcm` content coding (RFC 8188) with one record, keyed by ECDH
/// between a sender key and the subscription's `p256dh`, and the subscription's `auth` secret.
///
/// Only the RFC's key schedule is written here (HKDF as HMAC-SHA-256 steps); ECDH, HMAC and AES-128-GCM are
/// OpenSSL's, on objects made once (`WebPushCrypto`). A subscription's point is read once and kept (`peers`).
public enum WebPushEncryption {
    /// The record size written in the header, and the most bytes a message has: push services accept 4096 bytes of
    /// body at least (RFC 8291 §4).
    public static let recordSize = 4096
    /// The header before the record: salt (16), record size (4), key id length (1), the sender's point (65).
    public static let headerBytes = 86
    /// The plaintext one message holds: 4096 bytes less the header, the padding delimiter and the 16-byte tag.
    public static let maximumPlaintextBytes = recordSize - headerBytes - 1 - 16
    /// The most subscription points kept; past it the cache starts over.
    static let maximumCachedPeers = 4_096
    /// The points of the subscriptions sent to lately, by their `p256dh`.
    private static let peers = Mutex<[[UInt8]: P256Point]>([:])

    /// `p256dh`'s point: the kept one, or read (and checked on the curve) and kept.
    static func peer(_ p256dh: [UInt8]) throws(SigningError) -> P256Point {
        if let known = peers.withLock({ $0[p256dh] }) { return known }
        let point = try P256Point(uncompressed: p256dh)
        peers.withLock { peers in
            if peers.count >= maximumCachedPeers { peers.removeAll() }
            peers[p256dh] = point
        }
        return point
    }

    /// Encrypts `plaintext` for the subscription with a fresh sender key and a fresh 16-byte salt.
    public static func encrypt(_ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8]) throws(SigningError)
        -> [UInt8]
    {
        var salt = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&salt, Int32(salt.count)) == 1 else {
            throw SigningError(.signingFailed, "could not draw a random salt")
        }
        return try encrypt(plaintext, p256dh: p256dh, auth: auth, sender: P256Key.generate(), salt: salt)
    }

    /// Encrypts with a given sender private key (32 bytes) and salt: RFC 8291 Appendix A's example, reproducible.
    public static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], senderPrivateKey: [UInt8], salt: [UInt8]
    ) throws(SigningError) -> [UInt8] {
        try encrypt(
            plaintext, p256dh: p256dh, auth: auth, sender: P256Key.privateKey(scalar: senderPrivateKey), salt: salt)
    }

    static func encrypt(_ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], sender: P256Key, salt: [UInt8])
        throws(SigningError) -> [UInt8]
    {
        guard plaintext.count <= maximumPlaintextBytes else {
            throw SigningError(.signingFailed, "the plaintext is more than \(maximumPlaintextBytes) bytes")
        }
        guard auth.count == 16, salt.count == 16 else {
            throw SigningError(.signingFailed, "the auth secret and the salt must be 16 bytes")
        }
        let receiver = try peer(p256dh)
        let senderPoint = try sender.publicPoint()
        let sharedSecret = try sender.sharedSecret(with: receiver)
        // RFC 8291 §3.4: the input keying material from the ECDH secret and the auth secret.
        let keyInfo = Array("WebPush: info".utf8) + [0] + p256dh + senderPoint
        let inputKey = try hmac(key: try hmac(key: auth, sharedSecret), keyInfo + [1])
        // RFC 8188 §2.2 and §2.3: the content-encryption key and the nonce from the salt.
        let pseudorandomKey = try hmac(key: salt, inputKey)
        let contentKey = try hmac(key: pseudorandomKey, Array("Content-Encoding: aes128gcm".utf8) + [0, 1]).prefix(16)
        let nonce = try hmac(key: pseudorandomKey, Array("Content-Encoding: nonce".utf8) + [0, 1]).prefix(12)
        let size = UInt32(recordSize)
        var header = salt
        header += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        header.append(UInt8(senderPoint.count))
        header += senderPoint
        // The last (only) record's padding delimiter is 0x02, with no padding after it.
        return header + (try seal(plaintext + [2], key: Array(contentKey), nonce: Array(nonce)))
    }

    /// HMAC-SHA-256 of `message` under `key`.
    private static func hmac(key: [UInt8], _ message: [UInt8]) throws(SigningError) -> [UInt8] {
        let template = try WebPushCrypto.get().hmacTemplate
        var digest = [UInt8](repeating: 0, count: 32)
        guard copenssl_hmac(template, key, key.count, message, message.count, &digest) == 1 else {
            throw SigningError(.signingFailed, "HMAC-SHA-256 failed")
        }
        return digest
    }

    /// AES-128-GCM of `plaintext`: the ciphertext followed by the 16-byte tag.
    private static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws(SigningError) -> [UInt8] {
        let cipher = try WebPushCrypto.get().aes128GCM
        ERR_clear_error()
        guard let context = EVP_CIPHER_CTX_new() else {
            throw SigningError(.signingFailed, "could not allocate a cipher context")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written: Int32 = 0
        var final: Int32 = 0
        let sealed = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress,
                EVP_EncryptInit_ex(context, cipher, nil, key, nonce) == 1,
                EVP_EncryptUpdate(context, base, &written, plaintext, Int32(plaintext.count)) == 1,
                EVP_EncryptFinal_ex(context, base + Int(written), &final) == 1,
                Int(written + final) == plaintext.count
            else { return false }
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, base + plaintext.count) == 1
        }
        guard sealed else { throw SigningError(.signingFailed, "AES-128-GCM failed (\(drainOpenSSLErrors()))") }
        return output
    }
}
