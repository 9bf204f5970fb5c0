public import Foundation

/// The repository the tests run in: its checked-in files, and fresh files in the temporary directory.
public enum Repository {
    /// The repository's root directory.
    public static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The contracts' examples, `schemas/examples`.
    public static let examples = path("schemas/examples")

    /// A file or folder of the repository, by its path from the root.
    public static func path(_ relative: String) -> URL { root.appending(path: relative) }

    /// The bytes of a file.
    public static func read(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }

    /// The `.json` files of a folder, sorted by name.
    public static func jsonFiles(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// A fresh file in the temporary directory holding `bytes`.
    public static func temporaryFile(_ bytes: [UInt8], suffix: String = ".json") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("test-\(UUID().uuidString)\(suffix)")
        try Data(bytes).write(to: url)
        return url
    }

    /// A fresh, empty folder in the temporary directory.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return url
    }
}
