internal import COpenSSL

/// A P-256 private key that makes ES256 signatures (JWS form: raw `r‖s`, 32 bytes each), e.g. an APNs `.p8` key.
public final class ES256Key: Sendable {
    private let key: PrivateKey

    /// Loads the key from PEM text (the `.p8` file's contents). `label` names the key in errors, e.g. the file path.
    public init(pem: String, label: String = "the ES256 key") throws(SigningError) {
        key = try PrivateKey(pem: pem, expecting: .ecP256, label: label)
    }

    /// The public key as an uncompressed point (65 bytes): VAPID's `k`.
    public func publicKey() throws(SigningError) -> [UInt8] {
        try key.publicPoint()
    }

    /// Signs `message` with ECDSA P-256 over SHA-256 and returns the 64-byte `r‖s` signature.
    public func sign(_ message: [UInt8]) throws(SigningError) -> [UInt8] {
        try Self.rawSignature(fromDER: key.signSHA256(message))
    }

    /// Converts a DER `ECDSA-Sig-Value` (SEQUENCE of two INTEGERs) into `r‖s`, each left-padded to 32 bytes.
    static func rawSignature(fromDER der: [UInt8]) throws(SigningError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw SigningError(.signingFailed, "OpenSSL returned a signature that is not DER ECDSA")
        }
        defer { ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(ECDSA_SIG_get0_r(parsed), base, 32) == 32
                && BN_bn2binpad(ECDSA_SIG_get0_s(parsed), base + 32, 32) == 32
        }
        guard written else {
            throw SigningError(.signingFailed, "an ECDSA signature component is longer than 32 bytes")
        }
        return raw
    }
}
