internal import COpenSSL

/// The one owner of an OpenSSL private key (`EVP_PKEY`), loaded from PEM and freed on `deinit`.
///
/// `@unchecked Sendable`: the key is never mutated after `init`; each signature uses its own `EVP_MD_CTX`,
/// and OpenSSL 3 documents concurrent read-only use of one `EVP_PKEY` from several threads as safe.
final class PrivateKey: @unchecked Sendable {
    enum Algorithm: Sendable {
        case ecP256
        case rsa
    }

    private let key: OpaquePointer

    /// Reads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, or the traditional EC / RSA forms) and checks its type.
    init(pem: String, expecting algorithm: Algorithm, label: String) throws(SigningError) {
        ERR_clear_error()
        let bytes = Array(pem.utf8)
        let loaded: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let loaded else {
            throw SigningError(.unreadableKey, "\(label) is not a readable PEM private key (\(drainOpenSSLErrors()))")
        }
        do {
            try Self.check(loaded, is: algorithm, label: label)
        } catch {
            EVP_PKEY_free(loaded)
            throw error
        }
        key = loaded
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The public point of an EC key, uncompressed (65 bytes for P-256).
    func publicPoint() throws(SigningError) -> [UInt8] {
        try P256Key.publicPoint(of: key)
    }

    /// Signs `message` with SHA-256: ECDSA (DER signature) for EC keys, PKCS#1 v1.5 for RSA keys.
    func signSHA256(_ message: [UInt8]) throws(SigningError) -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else {
            throw SigningError(.signingFailed, "could not allocate a digest context")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw SigningError(.signingFailed, "could not start a SHA-256 signature (\(drainOpenSSLErrors()))")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw SigningError(.signingFailed, "could not size the signature (\(drainOpenSSLErrors()))")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw SigningError(.signingFailed, "could not sign (\(drainOpenSSLErrors()))")
        }
        return Array(signature.prefix(length))
    }

    private static func check(_ key: OpaquePointer, is algorithm: Algorithm, label: String) throws(SigningError) {
        switch algorithm {
        case .ecP256:
            guard copenssl_key_is_ec(key) == 1 else {
                throw SigningError(.wrongKeyType, "\(label) is not an EC key; ES256 needs a P-256 key")
            }
            var name = [CChar](repeating: 0, count: 64)
            var nameLength = 0
            guard EVP_PKEY_get_group_name(key, &name, name.count, &nameLength) == 1,
                String(decoding: name.prefix(nameLength).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
            else {
                throw SigningError(.wrongKeyType, "\(label) is an EC key on another curve than P-256")
            }
        case .rsa:
            guard copenssl_key_is_rsa(key) == 1 else {
                throw SigningError(.wrongKeyType, "\(label) is not an RSA key; RS256 needs one")
            }
        }
    }
}
