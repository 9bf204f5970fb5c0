import PushPipeline
import Synchronization
import TestSupport
import Testing

@testable import Worker

/// An in-memory file for the rules reloader.
final class MemoryFile: FileReading {
    let file = Mutex<(stamp: FileStamp, bytes: [UInt8])?>(nil)

    func write(_ text: String, version: Int64) {
        file.withLock {
            $0 = (FileStamp(modifiedNanoseconds: version, size: Int64(text.utf8.count), inode: 1), Array(text.utf8))
        }
    }

    func stamp(of path: String) -> FileStamp? { file.withLock { $0?.stamp } }

    func contents(of path: String) throws -> [UInt8] {
        guard let bytes = file.withLock({ $0?.bytes }) else { throw FileReadError(path: path, reason: "missing") }
        return bytes
    }
}

struct BadRules: Error, CustomStringConvertible {
    var description: String { "types.text.sound: must be a string" }
}

@Suite struct LifecycleHelpersTests {
    @Test func theRulesReloaderAppliesANewFileOnceAndRefusesABadOneKeepingTheOld() {
        let files = MemoryFile()
        files.write("good-1", version: 1)
        let applied = Mutex<[String]>([])
        var reloader = RulesReloader(path: "/rules.json", files: files, initial: files.stamp(of: "/rules.json")) {
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
        var reloader = RulesReloader(path: "/rules.json", files: files, initial: nil) { _ in }
        #expect(reloader.check() == .unchanged)
    }

    @Test(arguments: [(0, false), (299_999, false), (300_000, false), (300_001, true)])
    func theWatchdogCallsPollingStalledOnlyPastTheLimit(elapsedMillis: Int64, stalled: Bool) {
        #expect(
            Watchdog.isStalled(
                lastPollMicros: 1_000_000, nowMicros: 1_000_000 + elapsedMillis * 1000, limit: .seconds(300))
                == stalled)
    }

    @Test func theWatchdogReportsTheLastPollOnceItStalls() async {
        let clock = TestClock()
        let lastPoll = clock.nowMicros()
        let watching = Task { await Watchdog(limit: .seconds(10), clock: clock).watch { lastPoll } }
        for _ in 0..<200 {
            clock.advance(by: .seconds(1))
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(await watching.value == lastPoll)
    }
}
