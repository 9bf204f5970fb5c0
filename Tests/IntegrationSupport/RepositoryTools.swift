public import Foundation
public import TestSupport

/// The Python tools `deploy/local/setup.sh` installs into `.venv`, run as child processes.
extension Repository {
    /// The Python of `.venv` (with the test doubles' packages), or `python3` on PATH when there is no `.venv`.
    public static var python: URL {
        let venv = path(".venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: venv.path) ? venv : URL(filePath: "/usr/bin/python3")
    }

    /// Runs the tool `name` of `.venv/bin` (or, when `.venv` has none, the one on PATH) to its end; returns its
    /// status and both outputs (status 127 with a hint when it is nowhere).
    public static func runTool(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let venv = path(".venv/bin/\(name)")
        let result =
            FileManager.default.isExecutableFile(atPath: venv.path)
            ? try ChildProcessResult.run(venv, arguments)
            : try ChildProcessResult.run(URL(filePath: "/usr/bin/env"), [name] + arguments)
        let hint = result.status == 127 ? "\n(\(name) not found: run deploy/local/setup.sh)" : ""
        return (result.status, result.stdout + result.stderr + hint)
    }
}
