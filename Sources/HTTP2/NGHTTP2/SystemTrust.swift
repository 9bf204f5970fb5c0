internal import CNGHTTP2
import Glibc

/// Where the nghttp2 transport's TLS context finds the system's CAs.
///
/// OpenSSL's usual call (`SSL_CTX_set_default_verify_paths`) reads the whole CA bundle file at start, parsing every
/// certificate in it (about 140 on Debian: 20 ms of CPU, each worker start). Its hashed directory, which
/// `update-ca-certificates` keeps beside the bundle with the same CAs, is read a CA at a time, when a chain needs
/// it. The directory is used when it has hashed certificates; the file when it has none, or when `SSL_CERT_FILE`
/// names a file, as OpenSSL's own override.
enum SystemTrust: Equatable {
    /// The hashed directory (`SSL_CERT_DIR` or OpenSSL's default): a CA is read when a chain needs it.
    case directory
    /// The bundle file (`SSL_CERT_FILE` or OpenSSL's default), read whole.
    case file

    /// `file` when `certificateFileOverride` (the `SSL_CERT_FILE` variable) is set, or when none of `directories`
    /// (`SSL_CERT_DIR`'s, colon-separated, or OpenSSL's default) holds a hashed certificate name; else `directory`.
    static func choose(
        certificateFileOverride: String?, directories: [String], hasHashedName: (String) -> Bool
    ) -> SystemTrust {
        if let certificateFileOverride, !certificateFileOverride.isEmpty { return .file }
        return directories.contains(where: hasHashedName) ? .directory : .file
    }

    /// The choice for this process's environment and file system.
    static var current: SystemTrust {
        let override = getenv(X509_get_default_cert_file_env()).map { String(cString: $0) }
        let directories =
            getenv(X509_get_default_cert_dir_env()).map { String(cString: $0) }
            ?? String(
                cString: X509_get_default_cert_dir())
        return choose(
            certificateFileOverride: override,
            directories: directories.split(separator: ":").map(String.init),
            hasHashedName: directoryHasHashedName)
    }

    /// Installs the system's CAs in `context` as `self` says.
    func install(in context: OpaquePointer) {
        switch self {
        case .directory: _ = SSL_CTX_set_default_verify_dir(context)
        case .file: _ = SSL_CTX_set_default_verify_file(context)
        }
    }

    /// Whether `name` is how OpenSSL's hashed directory names a certificate: eight hex digits, `.`, a number
    /// (`5ad8a5d6.0`); CRLs (`.r0`) and the PEM files the links point at do not count.
    static func isHashedName(_ name: some StringProtocol) -> Bool {
        let utf8 = Array(name.utf8)
        guard utf8.count >= 10, utf8[8] == UInt8(ascii: ".") else { return false }
        let isHex = { (byte: UInt8) in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        }
        return utf8[..<8].allSatisfy(isHex)
            && utf8[9...].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Whether `path` is a directory with a hashed certificate name in it, read up to the first one.
    static func directoryHasHashedName(_ path: String) -> Bool {
        guard let directory = opendir(path) else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let found = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                isHashedName(String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self))
            }
            if found { return true }
        }
        return false
    }
}
