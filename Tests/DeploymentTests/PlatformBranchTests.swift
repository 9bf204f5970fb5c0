import Foundation
import TestSupport
import Testing

/// `Package.swift` declares macOS beside Linux: every Swift file that imports Glibc has its Darwin branch, so a new
/// file cannot quietly make the platform list untrue.
@Suite struct PlatformBranchTests {
    /// The Swift files under `Sources` and `Tests`, as paths from the repository's root.
    static func swiftFiles() throws -> [String] {
        var files: [String] = []
        for folder in ["Sources", "Tests"] {
            let enumerator = FileManager.default.enumerator(atPath: Repository.path(folder).path)
            while let path = enumerator?.nextObject() as? String {
                if path.hasSuffix(".swift") { files.append("\(folder)/\(path)") }
            }
        }
        return files.sorted()
    }

    @Test func everyFileImportingGlibcHasADarwinBranch() throws {
        var importers = 0
        for file in try Self.swiftFiles() {
            let text = try String(contentsOf: Repository.path(file), encoding: .utf8)
            guard text.contains("import Glibc") else { continue }
            importers += 1
            #expect(text.contains("canImport(Darwin)"), "\(file) imports Glibc without a Darwin branch")
        }
        // The scan found the files it is about (a wrong root would find none and pass).
        #expect(importers >= 10)
    }
}
