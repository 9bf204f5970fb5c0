import Foundation
import Synchronization

/// How a child process run to its end exited, and what it printed.
public struct ChildProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Runs `executable` with `arguments` until it exits, with `input` on its stdin and, when given, only
    /// `environment` as its environment. Both outputs are read while it runs, so neither pipe can fill up.
    public static func run(
        _ executable: URL, _ arguments: [String], input: String = "", environment: [String: String]? = nil
    ) throws -> ChildProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let errorOutput = Mutex(Data())
        let errorRead = DispatchSemaphore(value: 0)
        Thread {
            let data = stderr.fileHandleForReading.readDataToEndOfFile()
            errorOutput.withLock { $0 = data }
            errorRead.signal()
        }.start()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        return ChildProcessResult(
            status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errorOutput.withLock { $0 }, as: UTF8.self))
    }
}
