import Foundation
import Glibc
import Testing

@testable import HTTP2

@Suite("Combined CA bundle file")
struct CombinedCAFileTests {
    @Test func filesOfEndedProcessesAreRemovedAndLiveOnesKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Pid 1 lives (init); a pid beyond pid_max never does; our own pid's files are an earlier run's.
        let names = [
            "push-worker-ca-1-A.pem", "push-worker-ca-2147483646-B.pem", "push-worker-ca-\(getpid())-C.pem",
            "push-worker-ca-notapid.pem", "other.pem",
        ]
        for name in names {
            #expect(FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: Data("x".utf8)))
        }
        TrustedCertificates.removeStaleFiles(in: directory)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(left == ["other.pem", "push-worker-ca-1-A.pem", "push-worker-ca-notapid.pem"])
    }
}
