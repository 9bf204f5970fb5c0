import Foundation

/// Test keys made by the `openssl` command into a temporary directory (never committed), once per test process.
public enum TestKeys {
    /// A P-256 private key (PKCS#8 PEM), the kind APNs token authentication uses.
    public static let p256 = Result { try generate(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]) }
    /// A P-384 private key (PKCS#8 PEM): an EC key of the wrong curve for ES256.
    public static let p384 = Result { try generate(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]) }
    /// An RSA-2048 private key (PKCS#8 PEM), the kind a Google service account holds.
    public static let rsa = Result { try generate(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]) }

    /// `openssl genpkey` failed; `stderr` says why.
    public struct GenerationFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// A new private key PEM from `openssl genpkey` with these options.
    private static func generate(_ options: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try ChildProcessResult.run(
            URL(fileURLWithPath: "/usr/bin/openssl"), ["genpkey", "-out", path] + options)
        guard result.status == 0 else {
            throw GenerationFailed(description: "openssl genpkey exited with \(result.status): \(result.stderr)")
        }
        return try String(contentsOfFile: path, encoding: .utf8)
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
