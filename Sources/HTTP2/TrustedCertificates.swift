internal import CCurl
import Foundation

/// The system CA bundle plus an extra PEM file, held in memory for libcurl's `CURLOPT_CAINFO_BLOB`
/// (`CURLOPT_CAINFO` alone would replace the system bundle rather than add to it).
final class TrustedCertificates {
    let bytes: UnsafeMutableRawBufferPointer

    /// Reads the system bundle libcurl was built with and appends the certificates of `extraFile`.
    init(extraFile: String) throws(HTTPError) {
        guard let extra = FileManager.default.contents(atPath: extraFile) else {
            throw HTTPError(.tls, "cannot read the CA file \(extraFile)")
        }
        guard String(decoding: extra, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw HTTPError(.tls, "the CA file \(extraFile) holds no PEM certificate")
        }
        let system = TrustedCertificates.systemBundlePath().flatMap { FileManager.default.contents(atPath: $0) }
        let combined = (system ?? Data()) + Data("\n".utf8) + extra
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: combined.count, alignment: 1)
        bytes.copyBytes(from: combined)
    }

    deinit { bytes.deallocate() }

    /// The CA bundle path libcurl uses by default (`CURLINFO_CAINFO`, libcurl 7.84+).
    private static func systemBundlePath() -> String? {
        EasyHandle()?.stringInfo(CURLINFO_CAINFO) ?? "/etc/ssl/certs/ca-certificates.crt"
    }
}
