internal import CCurl
import Foundation
import Glibc
import HTTPTypes

/// The system CA bundle plus an extra PEM file, written once to a private file for libcurl's `CURLOPT_CAINFO`
/// (which would replace the system bundle rather than add to it if given the extra file alone).
///
/// A file, not `CURLOPT_CAINFO_BLOB`: libcurl 7.88 copies a blob into every transfer's connection candidate and
/// compares it byte by byte with each cached connection's, which cost 10–18 % of the worker's CPU in the
/// benchmark; a path is compared as a short string.
final class TrustedCertificates {
    /// The combined bundle, `push-worker-ca-<pid>-<uuid>.pem` in the temporary directory; removed by `remove()`
    /// (at the client's shutdown) or at the latest when this object goes away.
    let path: String

    /// The file-name prefix of every combined bundle.
    static let filePrefix = "push-worker-ca-"

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
        let directory = FileManager.default.temporaryDirectory.path
        _ = Self.staleFilesRemoved
        let path = (directory as NSString).appendingPathComponent(
            "\(Self.filePrefix)\(getpid())-\(UUID().uuidString).pem")
        guard FileManager.default.createFile(atPath: path, contents: combined, attributes: [.posixPermissions: 0o600])
        else {
            throw HTTPError(.tls, "cannot write the combined CA bundle to \(path)")
        }
        self.path = path
    }

    deinit { remove() }

    /// Removes the combined bundle (the transport no longer needs it once stopped). Idempotent.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs `removeStaleFiles` once per process, before its first bundle is written.
    private static let staleFilesRemoved: Void = removeStaleFiles(
        in: FileManager.default.temporaryDirectory.path)

    /// Removes the bundles left by processes that ended without removing theirs (killed, crashed), and by
    /// an earlier process of this pid (a restarted container): a file whose pid is not a live process
    /// other than this one. Bundles of live processes, and files of other names, are left alone.
    static func removeStaleFiles(in directory: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let ownPid = getpid()
        for name in names where name.hasPrefix(filePrefix) && name.hasSuffix(".pem") {
            guard let pid = Int32(name.dropFirst(filePrefix.count).prefix { $0 != "-" }) else { continue }
            guard pid == ownPid || !isAlive(pid) else { continue }
            try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name))
        }
    }

    private static func isAlive(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// The CA bundle path libcurl uses by default (`CURLINFO_CAINFO`, libcurl 7.84+).
    private static func systemBundlePath() -> String? {
        EasyHandle()?.stringInfo(CURLINFO_CAINFO) ?? "/etc/ssl/certs/ca-certificates.crt"
    }
}
