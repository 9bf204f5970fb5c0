import Foundation
import Testing

@testable import HTTP2

@Suite("The system's CAs")
struct SystemTrustTests {
    @Test(arguments: [
        ("5ad8a5d6.0", true), ("002c0b4f.12", true), ("5ad8a5d6.r0", false), ("5AD8A5D6.0", false),
        ("5ad8a5d.0", false), ("5ad8a5d6.", false), ("5ad8a5d6_0", false), ("ca-certificates.crt", false),
        ("ISRG_Root_X1.pem", false), ("", false), ("5ad8a5d6.0x", false),
    ])
    func hashedNamesAreEightHexDigitsADotAndANumber(name: String, hashed: Bool) {
        #expect(SystemTrust.isHashedName(name) == hashed)
    }

    @Test func aDirectoryWithHashedCertificatesIsReadACAAtATime() {
        let hashed = ["/etc/ssl/certs"]
        #expect(
            SystemTrust.choose(certificateFileOverride: nil, directories: ["/none", "/etc/ssl/certs"]) {
                hashed.contains($0)
            } == .directory)
        #expect(SystemTrust.choose(certificateFileOverride: "", directories: hashed) { _ in true } == .directory)
    }

    @Test func theBundleFileIsReadWhenNoDirectoryHasHashedCertificatesOrSSLCertFileNamesOne() {
        #expect(
            SystemTrust.choose(certificateFileOverride: nil, directories: ["/etc/ssl/certs"]) { _ in false } == .file)
        #expect(SystemTrust.choose(certificateFileOverride: nil, directories: []) { _ in true } == .file)
        #expect(
            SystemTrust.choose(certificateFileOverride: "/etc/ssl/mine.pem", directories: ["/etc/ssl/certs"]) { _ in
                true
            } == .file)
    }

    @Test func aDirectoryIsReadUpToItsFirstHashedName() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(!SystemTrust.directoryHasHashedName(directory.path))
        #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent("ca.pem").path, contents: nil))
        #expect(!SystemTrust.directoryHasHashedName(directory.path))
        #expect(
            FileManager.default.createFile(atPath: directory.appendingPathComponent("5ad8a5d6.0").path, contents: nil))
        #expect(SystemTrust.directoryHasHashedName(directory.path))
        #expect(!SystemTrust.directoryHasHashedName(directory.appendingPathComponent("missing").path))
    }
}
