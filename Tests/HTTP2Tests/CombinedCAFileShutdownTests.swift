import Foundation
import Glibc
import Testing

@testable import HTTP2

/// The combined CA bundle of a client trusting the system's bundle (`/etc/ssl/certs`) and an extra file.
@Suite("Combined CA bundle file of a client")
struct CombinedCAFileShutdownTests {
    /// A PEM file with certificates: the system bundle.
    static let pemFile = "/etc/ssl/certs/ca-certificates.crt"

    @Test func shutdownRemovesTheCombinedFileNotOnlyDeinit() async throws {
        let client = try CurlTransport(configuration: HTTP2TransportConfiguration(extraCAFile: Self.pemFile))
        let path = try #require(client.combinedCAFile)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(path.contains("push-worker-ca-\(getpid())-"))
        await client.shutdown()
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
