internal import CCurl
import Foundation

/// The system CA bundle plus an extra PEM file, written once to a private file for libcurl's `CURLOPT_CAINFO`
/// (which would replace the system bundle rather than add to it if given the extra file alone).
///
/// A file, not `CURLOPT_CAINFO_BLOB`: libcurl 7.88 copies a blob into every transfer's connection candidate and
/// compares it byte by byte with each cached connection's, which cost 10–18 % of the worker's CPU in the
/// benchmark; a path is compared as a short string.
final class TrustedCertificates {
    /// The combined bundle; removed when this object goes away.
    let path: String

    /// Reads the system bundle libcurl was built with, appends the certificates of `extraFile`, and writes both
    /// to a new file readable by this user only.
    init(extraFile: String) throws(HTTPError) {
        guard let extra = FileManager.default.contents(atPath: extraFile) else {
            throw HTTPError(.tls, "cannot read the CA file \(extraFile)")
        }
        guard String(decoding: extra, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw HTTPError(.tls, "the CA file \(extraFile) holds no PEM certificate")
        }
        let system = TrustedCertificates.systemBundlePath().flatMap { FileManager.default.contents(atPath: $0) }
        let combined = (system ?? Data()) + Data("\n".utf8) + extra
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-worker-ca-\(UUID().uuidString).pem").path
        guard FileManager.default.createFile(atPath: path, contents: combined, attributes: [.posixPermissions: 0o600])
        else {
            throw HTTPError(.tls, "cannot write the combined CA bundle to \(path)")
        }
        self.path = path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The CA bundle path libcurl uses by default (`CURLINFO_CAINFO`, libcurl 7.84+).
    private static func systemBundlePath() -> String? {
        EasyHandle()?.stringInfo(CURLINFO_CAINFO) ?? "/etc/ssl/certs/ca-certificates.crt"
    }
}
