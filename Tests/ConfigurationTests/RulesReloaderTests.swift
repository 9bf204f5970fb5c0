import Synchronization
import Testing

@testable import Configuration

/// An in-memory file for the rules reloader.
final class MemoryFile: FileReading {
    let file = Mutex<(stamp: FileStamp, bytes: [UInt8])?>(nil)

    func write(_ text: String, version: Int64) {
        file.withLock {
            $0 = (FileStamp(modifiedNanoseconds: version, size: Int64(text.utf8.count), inode: 1), Array(text.utf8))
        }
    }

    /// The file is gone, as between the two steps of a ConfigMap's symlink swap.
    func remove() { file.withLock { $0 = nil } }

    func stamp(of path: String) -> FileStamp? { file.withLock { $0?.stamp } }

    func contents(of path: String, kind: InputFileKind) throws -> [UInt8] {
        guard let bytes = file.withLock({ $0?.bytes }) else { throw FileReadError(path: path, reason: "missing") }
        return bytes
    }

    func folders(in directory: String) throws -> [String] { [] }
}

struct BadRules: Error, CustomStringConvertible {
    var description: String { "types.text.sound: must be a string" }
}

/// The rules reloader: each version of the file applied or refused once, a missing file changes nothing.
@Suite struct RulesReloaderTests {
    @Test func theRulesReloaderAppliesANewFileOnceAndRefusesABadOneKeepingTheOld() {
        let files = MemoryFile()
        files.write("good-1", version: 1)
        let applied = Mutex<[String]>([])
        var reloader = FileReloader(
            path: "/rules.json", kind: .rules, files: files, initial: files.stamp(of: "/rules.json")
        ) {
            bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            guard text.hasPrefix("good") else { throw BadRules() }
            applied.withLock { $0.append(text) }
        }
        #expect(reloader.check() == .unchanged)
        files.write("good-2", version: 2)
        #expect(reloader.check() == .applied)
        #expect(reloader.check() == .unchanged)
        files.write("bad", version: 3)
        #expect(reloader.check() == .refused(reason: "types.text.sound: must be a string"))
        #expect(reloader.check() == .unchanged)
        #expect(applied.withLock { $0 } == ["good-2"])
    }

    @Test func theRulesReloaderIgnoresAFileThatIsMomentarilyMissing() {
        let files = MemoryFile()
        files.write("good-1", version: 1)
        let applied = Mutex<[String]>([])
        var reloader = FileReloader(
            path: "/rules.json", kind: .rules, files: files, initial: files.stamp(of: "/rules.json")
        ) {
            bytes in applied.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }
        files.remove()
        #expect(reloader.check() == .unchanged)
        #expect(reloader.check() == .unchanged)
        // The same version back is not applied again; a new one is, once.
        files.write("good-1", version: 1)
        #expect(reloader.check() == .unchanged)
        files.remove()
        #expect(reloader.check() == .unchanged)
        files.write("good-2", version: 2)
        #expect(reloader.check() == .applied)
        #expect(applied.withLock { $0 } == ["good-2"])
    }

    @Test func theRulesReloaderWaitsForAFileThatIsNotThereYet() {
        let files = MemoryFile()
        var reloader = FileReloader(path: "/rules.json", kind: .rules, files: files, initial: nil) { _ in }
        #expect(reloader.check() == .unchanged)
        files.write("good-1", version: 1)
        #expect(reloader.check() == .applied)
    }
}
