public import Foundation

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

    /// Like `run`, but waits without blocking a thread (an async test must not hold one of the few threads of
    /// the cooperative pool while a child runs: other tests' tasks would starve); a child still running after
    /// `limit` is killed and reported with status 137.
    public static func run(
        _ executable: URL, _ arguments: [String], input: String = "", environment: [String: String]? = nil,
        within limit: Duration = .seconds(300)
    ) async throws -> ChildProcessResult {
        let child = try ChildProcess(executable, arguments, environment: environment)
        child.write(input)
        child.closeInput()
        var status = await child.exitStatus(within: limit)
        if status == nil {
            child.signal(SIGKILL)
            status = await child.exitStatus(within: .seconds(10))
        }
        return ChildProcessResult(status: status ?? 137, stdout: child.stdout.text, stderr: child.stderr.text)
    }
}
