import Foundation

/// The repository the tests run in: its files, and the Python tools `deploy/local/setup.sh` installs into `.venv`.
public enum Repository {
    /// The repository's root directory.
    public static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The contracts' examples, `schemas/examples`.
    public static let examples = path("schemas/examples")

    /// A file or folder of the repository, by its path from the root.
    public static func path(_ relative: String) -> URL { root.appending(path: relative) }

    /// The Python of `.venv` (with the test doubles' packages), or `python3` on PATH when there is no `.venv`.
    public static var python: URL {
        let venv = path(".venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: venv.path) ? venv : URL(filePath: "/usr/bin/python3")
    }

    /// The bytes of a file.
    public static func read(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }

    /// The `.json` files of a folder, sorted by name.
    public static func jsonFiles(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
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

    /// A fresh file in the temporary directory holding `bytes`.
    public static func temporaryFile(_ bytes: [UInt8], suffix: String = ".json") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("test-\(UUID().uuidString)\(suffix)")
        try Data(bytes).write(to: url)
        return url
    }
}
