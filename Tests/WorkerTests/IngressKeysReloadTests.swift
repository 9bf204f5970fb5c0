import Foundation
import IntegrationSupport
import TestSupport
import Testing

/// `push-worker ingress` with `PUSH_INGRESS_KEYS_FILE` rewritten while it runs, as a Kubernetes Secret update swaps
/// the mounted file: the new keys come in force, a broken file keeps them and the log says why without a key.
@Suite(.serialized) struct IngressKeysReloadTests {
    static let body = #"{"clients": ["user001"], "payload": {"alert": "Hello"}}"#

    /// Replaces the file at `path` by renaming a new one over it, as the kubelet swaps a Secret's files.
    static func swap(_ path: URL, to text: String) throws {
        let next = path.deletingLastPathComponent().appending(path: ".next-\(UUID().uuidString)")
        try Data(text.utf8).write(to: next)
        guard rename(next.path, path.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    @Test func aRotatedKeysFileComesInForceAndABrokenOneKeepsTheKeys() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "ingress-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let keysFile = folder.appending(path: "keys")
        try Self.swap(keysFile, to: "SampleApp:first-key\n")
        let (broker, bootstrap) = try await startDevBroker()
        let ingress = try ChildProcess(
            ChildProcess.built("push-worker"), ["ingress"],
            environment: [
                "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "PUSH_INGRESS_PORT": "0", "PUSH_INGRESS_HOST": "127.0.0.1",
                "PUSH_HTTP_PORT": "0", "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_INGRESS_KEYS_FILE": keysFile.path,
                "PUSH_INGRESS_KEYS_CHECK_MS": "100",
            ])
        let listening = try await ingress.stderr.line(containing: "ingress listening", within: .seconds(60))
        let port = try #require(Int(listening.firstMatch(of: /http.port[^0-9]*([0-9]+)/)?.output.1 ?? ""))
        func status(_ key: String) async throws -> Int {
            try await Task.detached {
                try LoopbackClient.post(
                    port: port, "/push/push2clients", body: Self.body, headers: ["IM-API-KEY: \(key)"],
                    timeoutSeconds: 30)
            }.value.status
        }
        /// The status for `key` once it is `expected`, asking again until `limit` passed.
        func eventually(_ key: String, is expected: Int, within limit: Duration = .seconds(30)) async throws -> Int {
            let deadline = ContinuousClock.now + limit
            var answer = try await status(key)
            while answer != expected, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                answer = try await status(key)
            }
            return answer
        }
        let first = try await status("first-key")
        // Rotation: both keys for a while, then only the new one.
        try Self.swap(keysFile, to: "SampleApp:first-key\nSampleApp:second-key\n")
        let secondAccepted = try await eventually("second-key", is: 200)
        try Self.swap(keysFile, to: "SampleApp:second-key\n")
        let firstRefused = try await eventually("first-key", is: 401)
        // A broken file: the keys in force stay, and the log names the entry, not the key.
        try Self.swap(keysFile, to: "SampleApp:second-key\nthird-key-without-app\n")
        let refusal = try await ingress.stderr.line(containing: "ingress keys reload refused", within: .seconds(30))
        let stillSecond = try await status("second-key")
        ingress.signal(SIGTERM)
        let exit = await ingress.exitStatus()
        _ = try? await broker.terminate()

        #expect(first == 200)
        #expect(secondAccepted == 200)
        #expect(firstRefused == 401)
        #expect(refusal.contains("entry 2: is not app:key"))
        #expect(stillSecond == 200)
        #expect(exit == 0)
        let log = ingress.stderr.text + ingress.stdout.text
        for key in ["first-key", "second-key", "third-key-without-app"] {
            #expect(!log.contains(key), "the log shows \(key)")
        }
    }
}
