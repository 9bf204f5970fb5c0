public import Foundation

/// A running child process: its stdin to write lines to, its stdout and stderr collected line by line.
///
/// ```swift
/// let worker = try ChildProcess(ChildProcess.built("push-worker"), ["run"], environment: [:])
/// #expect(await worker.stderr.waitForLine(containing: "started"))
/// worker.signal(SIGTERM)
/// #expect(await worker.exitStatus() == 0)
/// ```
public final class ChildProcess: Sendable {
    /// What the child has written to stdout.
    public let stdout: ChildOutputLines
    /// What the child has written to stderr.
    public let stderr: ChildOutputLines
    private let process: Process
    private let input: FileHandle

    /// There is no executable file at `path` (`swift build` builds `push-worker`).
    public struct MissingExecutable: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "no executable at \(path): run `swift build` first" }
    }

    /// Starts `executable` with `arguments` and, when given, only `environment` as its environment (either way with
    /// the librdkafka `LibrdkafkaChoice` chooses first on its library path); throws `MissingExecutable` when there is
    /// no such executable.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw MissingExecutable(path: executable.path)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = LibrdkafkaChoice.applied(to: environment ?? ProcessInfo.processInfo.environment)
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.stdout = ChildOutputLines(reading: stdout.fileHandleForReading)
        self.stderr = ChildOutputLines(reading: stderr.fileHandleForReading)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The executable `name` built beside the running test bundle (`push-worker`, say).
    public static func built(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Writes `text` to the child's stdin.
    public func write(_ text: String) { input.write(Data(text.utf8)) }

    /// Closes the child's stdin, so that it reads end of file.
    public func closeInput() { try? input.close() }

    /// Sends signal `number` (SIGTERM, SIGINT, …) to the child.
    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { process.isRunning }

    /// The exit status, or nil while the child runs.
    public var terminationStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// Blocks until the child has exited and both outputs are read to their end; its exit status.
    public func waitUntilExit() -> Int32 {
        process.waitUntilExit()
        stdout.waitUntilEnded()
        stderr.waitUntilEnded()
        return process.terminationStatus
    }

    /// The exit status once the child has exited and both outputs are read to their end, waiting up to
    /// `limit`; nil when it is still running then.
    public func exitStatus(within limit: Duration = .seconds(30)) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while process.isRunning || !(stdout.ended && stderr.ended) {
            // A grandchild holding a pipe open must not hide an exit that happened.
            guard ContinuousClock.now < deadline else { return terminationStatus }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }
}
