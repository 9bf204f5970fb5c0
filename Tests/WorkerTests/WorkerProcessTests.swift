import Foundation
import PushCore
import PushSimulatorSupport
import Synchronization
import Testing

/// A child process of the `push-worker` binary built beside the tests, with its output collected.
///
/// Output is read by blocking reads on threads of its own, not `FileHandle.readabilityHandler`: tearing
/// those dispatch sources down races the descriptor close on Linux and can crash the test process
/// (swift-corelibs-libdispatch issue 949).
final class ChildProcess: Sendable {
    private let process: Process
    private let input: FileHandle
    private let output = OutputBuffer()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("push-worker")
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        self.process = process
        self.input = stdin.fileHandleForWriting
        let output = output
        Self.drain(stdout.fileHandleForReading) { output.append(stdout: $0) }
        Self.drain(stderr.fileHandleForReading) { output.append(stderr: $0) }
    }

    /// Reads `handle` until end of file on a thread of its own.
    private static func drain(_ handle: FileHandle, into append: @escaping @Sendable (String) -> Void) {
        Thread {
            while case let data = handle.availableData, !data.isEmpty {
                append(String(decoding: data, as: UTF8.self))
            }
        }.start()
    }

    var stdout: String { output.text.stdout }
    var stderr: String { output.text.stderr }

    /// Waits up to `limit` for `condition` on the output.
    func waitFor(within limit: Duration = .seconds(30), _ condition: (ChildProcess) -> Bool) async -> Bool {
        await eventually(within: limit) { condition(self) }
    }

    /// Writes one line to the child's stdin and waits for the answer `ok LINE` (the dev broker's control protocol).
    func control(_ line: String) async throws {
        input.write(Data((line + "\n").utf8))
        guard await waitFor(within: .seconds(20), { $0.stdout.contains("ok \(line)") }) else {
            throw ControlFailed(command: line, output: stdout)
        }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// The exit status, waiting up to `limit`; nil when still running.
    func exitStatus(within limit: Duration = .seconds(30)) async -> Int32? {
        guard await eventually(within: limit, { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

struct ControlFailed: Error {
    let command: String
    let output: String
}

/// `push-worker dev-broker` with one broker and two partitions per topic, and its bootstrap servers.
func startDevBroker() async throws -> (ChildProcess, String) {
    let broker = try ChildProcess(["dev-broker", "--brokers", "1", "--partitions", "2"])
    _ = await broker.waitFor { $0.stdout.contains("\n") }
    guard let line = broker.stdout.split(separator: "\n").first, line.hasPrefix("bootstrap.servers=") else {
        throw ControlFailed(command: "start", output: broker.stdout)
    }
    return (broker, String(line.dropFirst("bootstrap.servers=".count)))
}

/// What a child wrote so far.
final class OutputBuffer: Sendable {
    private let buffer = Mutex<(stdout: String, stderr: String)>(("", ""))

    var text: (stdout: String, stderr: String) { buffer.withLock { $0 } }

    func append(stdout: String = "", stderr: String = "") {
        buffer.withLock { $0 = ($0.stdout + stdout, $0.stderr + stderr) }
    }
}

/// `push-worker run` as a process: configuration refusal, and a clean SIGTERM shutdown against the dev broker.
@Suite(.serialized) struct WorkerProcessTests {
    @Test func aBadSettingStopsTheStartWithOneLineNamingItAndExitCode3() async throws {
        let worker = try ChildProcess(
            ["run"], environment: ["FCM_SERVICE_ACCOUNT_FILE": "/x.json", "PUSH_BATCH_SIZE": "-1"])
        #expect(await worker.exitStatus() == 3)
        let lines = worker.stderr.split(separator: "\n")
        #expect(lines == ["push-worker: invalid PUSH_BATCH_SIZE: '-1' is not a whole number from 1 to 100000"])
    }

    @Test func sigtermDrainsCommitsAndExitsZero() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let account = try serviceAccount(in: directory)

        let (broker, bootstrap) = try await startDevBroker()
        let worker = try ChildProcess(
            ["run"],
            environment: [
                "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "FCM_SERVICE_ACCOUNT_FILE": account,
                "FCM_URL": "https://127.0.0.1:9",
                "PUSH_HTTP_PORT": "0", "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_SHUTDOWN_GRACE_SECONDS": "2",
                "KAFKA_SESSION_TIMEOUT_MS": "6000", "KAFKA_HEARTBEAT_INTERVAL_MS": "300",
                "PUSH_WORKER_ID": "worker-test",
            ])
        #expect(await worker.waitFor { $0.stderr.contains("partitions assigned") })
        worker.signal(SIGTERM)
        #expect(await worker.exitStatus() == 0)
        #expect(worker.stderr.contains("\"shut down\""))
        broker.signal(SIGTERM)
        _ = await broker.exitStatus()
    }

    @Test func aChangedRulesFileIsAppliedAndABadOneRefusedWithoutRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = directory.appendingPathComponent("rules.json")
        try Data(RulesTable.standardJSON.utf8).write(to: rules)
        let (broker, bootstrap) = try await startDevBroker()
        let worker = try ChildProcess(
            ["run"],
            environment: [
                "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "FCM_SERVICE_ACCOUNT_FILE": try serviceAccount(in: directory),
                "PUSH_RULES_FILE": rules.path, "PUSH_RULES_CHECK_MS": "100", "PUSH_HTTP_PORT": "0",
                "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_SHUTDOWN_GRACE_SECONDS": "1",
            ])
        // Only once it runs: before that, a bad file would stop the start (exit 3).
        #expect(await worker.waitFor { $0.stderr.contains("\"started\"") })
        try Data("{\"types\": 7".utf8).write(to: rules)
        #expect(await worker.waitFor { $0.stderr.contains("rules reload refused, previous table kept") })
        try Data(RulesTable.standardJSON.utf8).write(to: rules)
        #expect(await worker.waitFor { $0.stderr.contains("\"rules reloaded\"") })
        worker.signal(SIGTERM)
        #expect(await worker.exitStatus() == 0)
        broker.signal(SIGTERM)
        _ = await broker.exitStatus()
    }

    /// A service-account file (with the shared test RSA key) whose token endpoint nothing listens on.
    func serviceAccount(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("service-account.json").path
        try Data(TestKeys.serviceAccountJSON(tokenURI: "https://127.0.0.1:9/token")).write(
            to: URL(fileURLWithPath: path))
        return path
    }
}
