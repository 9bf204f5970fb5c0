import Foundation

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
        let child = try ChildProcess(executable, arguments, environment: environment)
        child.write(input)
        child.closeInput()
        let status = child.waitUntilExit()
        return ChildProcessResult(status: status, stdout: child.stdout.text, stderr: child.stderr.text)
    }
}
