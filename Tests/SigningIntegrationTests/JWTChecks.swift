import Foundation
import IntegrationSupport
import TestSupport

/// Signature checks by Python's `cryptography` (from `.venv`, as `deploy/local/setup.sh` installs it): an
/// implementation independent of ours. The keys are `TestKeys` (TestSupport).
enum JWTChecks {
    /// Whether Python's `cryptography` accepts `jwt` as signed by the private key in `pem` (`ES256` or `RS256`).
    static func pythonVerifies(jwt: String, pem: String) throws -> Bool {
        let script = """
            import base64, sys
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import ec, padding, utils
            pem, token = sys.stdin.read().split("\\n--\\n")
            key = serialization.load_pem_private_key(pem.encode(), None).public_key()
            head, claims, sig = token.strip().split(".")
            sig = base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4))
            data = (head + "." + claims).encode()
            if isinstance(key, ec.EllipticCurvePublicKey):
                assert len(sig) == 64
                der = utils.encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
                key.verify(der, data, ec.ECDSA(hashes.SHA256()))
            else:
                key.verify(sig, data, padding.PKCS1v15(), hashes.SHA256())
            print("verified")
            """
        let output = try run(Repository.python.path, ["-c", script], input: "\(pem)\n--\n\(jwt)")
        return output.contains("verified")
    }

    struct CommandFailed: Error {
        var command: String
        var status: Int32
    }

    /// Runs a program, feeding `input`, and returns its standard output; throws when it exits non-zero.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], input: String = "") throws -> String {
        let result = try ChildProcessResult.run(URL(fileURLWithPath: program), arguments, input: input)
        guard result.status == 0 else {
            throw CommandFailed(command: "\(program) \(arguments.first ?? "")", status: result.status)
        }
        return result.stdout
    }
}
