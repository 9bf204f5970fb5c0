internal import COpenSSL

/// SHA-256 digests.
public enum SHA256 {
    /// The 32-byte SHA-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = COpenSSL.SHA256(bytes, bytes.count, &digest)
        return digest
    }
}
