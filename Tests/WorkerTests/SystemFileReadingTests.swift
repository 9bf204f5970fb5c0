import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import Adapters
@testable import Configuration

/// The one reader of every input file: regular files only, a size cap per kind, nothing that can block.
@Suite(.timeLimit(.minutes(1))) struct SystemFileReadingTests {
    let files = SystemFileReading()

    @Test func aRegularFileWithinItsKindsCapIsRead() throws {
        let file = try Repository.temporaryFile(Array("A=1\n".utf8), suffix: ".env")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try files.contents(of: file.path, kind: .configuration) == Array("A=1\n".utf8))
    }

    /// A FIFO held `fopen` until a writer came (SIGTERM then took 33 s); `/dev/zero` filled memory.
    @Test(arguments: ["fifo", "/dev/zero", "directory"])
    func aFileThatIsNotRegularIsRefusedNamingIt(kind: String) throws {
        let path: String
        switch kind {
        case "fifo":
            path = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)").path
            #expect(mkfifo(path, 0o600) == 0)
        case "directory": path = FileManager.default.temporaryDirectory.path
        default: path = kind
        }
        defer { if kind == "fifo" { unlink(path) } }
        #expect {
            try files.contents(of: path, kind: .rules)
        } throws: { error in
            (error as? FileReadError)?.description
                == "\(path): is not a regular file (a directory, FIFO, socket or device)"
        }
    }

    @Test func aFileLargerThanItsKindsCapIsRefused() throws {
        let file = try Repository.temporaryFile(Array(repeating: UInt8(ascii: "x"), count: 64 * 1024 + 1), suffix: "")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: FileReadError.self) { try files.contents(of: file.path, kind: .secret) }
        #expect(try files.contents(of: file.path, kind: .credentials).count == 64 * 1024 + 1)
    }

    /// The rules file swapped for a FIFO (or `/dev/zero`) during a run: refused, the table in force stays.
    @Test(arguments: ["fifo", "/dev/zero"])
    func aRulesFileSwappedForAFIFOOrADeviceIsRefusedAtOnce(target: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = directory.appendingPathComponent("rules.json").path
        try Data("{}".utf8).write(to: URL(filePath: rules))
        let applied = Mutex(0)
        var reloader = FileReloader(path: rules, kind: .rules, files: files, initial: files.stamp(of: rules)) { _ in
            applied.withLock { $0 += 1 }
        }
        try FileManager.default.removeItem(atPath: rules)
        if target == "fifo" {
            #expect(mkfifo(rules, 0o600) == 0)
        } else {
            try FileManager.default.createSymbolicLink(atPath: rules, withDestinationPath: target)
        }
        guard case .refused(let reason) = reloader.check() else {
            Issue.record("the swapped file was not refused")
            return
        }
        #expect(reason.contains("is not a regular file"))
        #expect(applied.withLock { $0 } == 0)
    }

    @Test func aStartingRulesFileThatIsADeviceStopsTheStartNamingTheVariable() {
        #expect {
            try StartingRules.load(path: "/dev/zero", files: files)
        } throws: { error in
            (error as? InvalidSetting)?.variable == "PUSH_RULES_FILE"
                && (error as? InvalidSetting)?.reason.hasPrefix("/dev/zero: is not a regular file") == true
        }
    }

    /// A projected Secret volume as the kubelet writes it: `..<timestamp>/` holds the files, `..data` points at it,
    /// and each top-level name points into `..data`; an update writes a new timestamped folder and swaps `..data`.
    @Test func theAppFoldersOfASecretVolumeAreListedWithoutItsHiddenOnesAndFollowItsSymlinkSwap() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("apps-volume-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        func writeVersion(_ name: String, settings: String) throws {
            let folder = root.appendingPathComponent(name).appendingPathComponent("beta")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(settings.utf8).write(to: folder.appendingPathComponent("app.json"))
            try Data("{}".utf8).write(to: folder.appendingPathComponent("fcm-service-account.json"))
        }
        try writeVersion("..2026_12_01_10_00_00.1", settings: "{}")
        #expect(symlink("..2026_12_01_10_00_00.1", root.appendingPathComponent("..data").path) == 0)
        #expect(symlink("..data/beta", root.appendingPathComponent("beta").path) == 0)
        try Data().write(to: root.appendingPathComponent("not-a-folder"))
        #expect(try files.folders(in: root.path) == ["beta"])
        let before = AppFolderContents.read(root.appendingPathComponent("beta").path, files: files)

        try writeVersion("..2026_12_01_10_05_00.2", settings: #"{"fcm": {}}"#)
        #expect(symlink("..2026_12_01_10_05_00.2", root.appendingPathComponent("..data_tmp").path) == 0)
        #expect(rename(root.appendingPathComponent("..data_tmp").path, root.appendingPathComponent("..data").path) == 0)
        let after = AppFolderContents.read(root.appendingPathComponent("beta").path, files: files)
        #expect(after != before)
        #expect(after.files["app.json"] == .bytes(Array(#"{"fcm": {}}"#.utf8)))
        #expect(throws: FileReadError.self) { try files.folders(in: root.appendingPathComponent("absent").path) }
    }
}
