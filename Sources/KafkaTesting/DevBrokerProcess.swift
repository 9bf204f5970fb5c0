import ChildProcessTesting
import Foundation

/// `push-worker dev-broker` run as a child process, for integration tests that need a Kafka cluster in
/// another process and want to inject faults into it through its control protocol.
///
/// ```swift
/// let broker = try DevBrokerProcess(arguments: ["--partitions", "3"])
/// let servers = try await broker.bootstrapServers()
/// try await broker.control("broker-down 1")
/// ```
public final class DevBrokerProcess: Sendable {
    /// Something the child process did not do as expected.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let process: Process
    private let input: FileHandle
    private let output: ChildOutputLines

    /// Starts `push-worker dev-broker` with `arguments`; `executable` defaults to the `push-worker` built
    /// beside the running test bundle.
    public init(executable: URL? = nil, arguments: [String] = []) throws {
        let process = Process()
        process.executableURL = executable ?? Self.builtExecutable
        process.arguments = ["dev-broker"] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        self.process = process
        self.input = stdin.fileHandleForWriting
        try process.run()
        self.output = ChildOutputLines(reading: stdout.fileHandleForReading)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// `push-worker` in the build directory of the running tests.
    public static var builtExecutable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("push-worker")
    }

    /// The servers from the broker's first line (`bootstrap.servers=…`), waiting up to `limit` for it.
    public func bootstrapServers(within limit: Duration = .seconds(20)) async throws -> String {
        let prefix = "bootstrap.servers="
        let first = try await line(0, within: limit)
        guard first.hasPrefix(prefix) else { throw Failure(description: "unexpected first line '\(first)'") }
        return String(first.dropFirst(prefix.count))
    }

    /// Sends one control command (see `push-worker dev-broker --help`) and returns its answer line.
    public func send(_ command: String, within limit: Duration = .seconds(20)) async throws -> String {
        let index = output.count
        input.write(Data((command + "\n").utf8))
        return try await line(index, within: limit)
    }

    /// Sends one control command and throws unless it is answered `ok`.
    public func control(_ command: String, within limit: Duration = .seconds(20)) async throws {
        let answer = try await send(command, within: limit)
        guard answer.hasPrefix("ok ") else { throw Failure(description: answer) }
    }

    /// Sends SIGTERM and returns the exit status once the process has exited.
    public func terminate(within limit: Duration = .seconds(20)) async throws -> Int32 {
        process.terminate()
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw Failure(description: "no exit within \(limit)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    private func line(_ index: Int, within limit: Duration) async throws -> String {
        do {
            return try await output.line(index, within: limit)
        } catch let missing as ChildOutputLines.Missing {
            let exit = process.isRunning ? "" : " (exit status \(process.terminationStatus))"
            throw Failure(description: "dev broker: \(missing)\(exit)")
        }
    }
}
