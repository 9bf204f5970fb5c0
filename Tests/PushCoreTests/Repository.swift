import ChildProcessTesting
import Foundation

/// Files of the repository the tests read: examples, goldens, validators, the Python of `.venv`.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let tests = root.appendingPathComponent("Tests/PushCoreTests")
    static let examples = root.appendingPathComponent("schemas/examples")

    static func read(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }

    /// The `.json` files of a folder, sorted by name.
    static func jsonFiles(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Runs a tool from `.venv/bin` (installed by `deploy/local/setup.sh`) and returns its status and stdout.
    static func runVenvTool(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try ChildProcessResult.run(root.appendingPathComponent(".venv/bin/\(tool)"), arguments)
        return (result.status, result.stdout + result.stderr)
    }

    /// A fresh file in the temporary directory holding `bytes`.
    static func temporaryFile(_ bytes: [UInt8], suffix: String = ".json") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushcore-\(UUID().uuidString)\(suffix)")
        try Data(bytes).write(to: url)
        return url
    }
}
