internal import COpenSSL
import Foundation

/// Test keys generated in memory with OpenSSL (never committed), once per test process.
public enum TestKeys {
    /// A P-256 private key (PKCS#8 PEM), the kind APNs token authentication uses.
    public static let p256 = Result { try generate(algorithm: "EC") { EVP_PKEY_CTX_set_group_name($0, "P-256") } }
    /// A P-384 private key (PKCS#8 PEM): an EC key of the wrong curve for ES256.
    public static let p384 = Result { try generate(algorithm: "EC") { EVP_PKEY_CTX_set_group_name($0, "P-384") } }
    /// An RSA-2048 private key (PKCS#8 PEM), the kind a Google service account holds.
    public static let rsa = Result { try generate(algorithm: "RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, 2048) } }

    /// OpenSSL could not generate or write a key; `description` says at which step.
    public struct GenerationFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// A new private key PEM of `algorithm`, its parameters set by `configure` on the key generation context.
    private static func generate(algorithm: String, configure: (OpaquePointer) -> Int32) throws -> String {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw GenerationFailed(description: "no \(algorithm) key generation in OpenSSL")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1, EVP_PKEY_generate(context, &key) == 1,
            let key
        else { throw GenerationFailed(description: "generating an \(algorithm) key failed") }
        defer { EVP_PKEY_free(key) }
        guard let memory = BIO_new(BIO_s_mem()) else { throw GenerationFailed(description: "no memory BIO") }
        defer { BIO_free(memory) }
        guard PEM_write_bio_PrivateKey(memory, key, nil, nil, 0, nil, nil) == 1 else {
            throw GenerationFailed(description: "writing the \(algorithm) key as PEM failed")
        }
        var pem = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(memory)))
        let read = BIO_read(memory, &pem, Int32(pem.count))
        guard read == pem.count else { throw GenerationFailed(description: "reading the PEM back failed") }
        return String(decoding: pem, as: UTF8.self)
    }

    /// A service-account JSON for `tokenURI` with the `rsa` key.
    public static func serviceAccountJSON(tokenURI: String, project: String = "demo-project") throws -> [UInt8] {
        let object: [String: String] = [
            "type": "service_account", "project_id": project, "private_key_id": "key-1",
            "private_key": try rsa.get(), "client_email": "push@\(project).iam.gserviceaccount.com",
            "token_uri": tokenURI,
        ]
        return Array(try JSONSerialization.data(withJSONObject: object))
    }
}
