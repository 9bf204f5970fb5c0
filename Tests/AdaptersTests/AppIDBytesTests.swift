import Foundation
import PushCore
import PushPipeline
import TestSupport
import Testing

@testable import Adapters
@testable import Configuration

/// Files under paths told apart by their bytes, as a Linux file system tells names apart.
struct ByteNamedFiles: FileReading {
    var files: [[UInt8]: [UInt8]] = [:]

    func stamp(of path: String) -> FileStamp? {
        files[Array(path.utf8)].map { FileStamp(modifiedNanoseconds: 1, size: Int64($0.count), inode: 1) }
    }

    func contents(of path: String, kind: InputFileKind) throws -> [UInt8] {
        guard let bytes = files[Array(path.utf8)] else {
            throw FileReadError(path: path, reason: "No such file or directory")
        }
        return bytes
    }

    func folders(in directory: String) throws -> [String] {
        let prefix = Array((directory + "/").utf8)
        let names = files.keys.compactMap { path in
            path.starts(with: prefix) ? path.dropFirst(prefix.count).split(separator: UInt8(ascii: "/")).first : nil
        }
        return Set(names.map(Array.init)).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// App ids are bytes: two folders whose names are canonically equivalent (`café` as NFC and as NFD) are two apps.
@Suite struct AppIDBytesTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func foldersOfCanonicallyEquivalentNamesAreTwoAppsEachWithItsOwnTopic() throws {
        var files = ByteNamedFiles()
        for (app, topic) in [(Self.composed, "com.example.composed"), (Self.decomposed, "com.example.decomposed")] {
            let settings = AppFolderTests.settings.replacingOccurrences(of: "com.example.alpha", with: topic)
            files.files[Array("\(AppFolderTests.directory)/\(app)/app.json".utf8)] = Array(settings.utf8)
            files.files[Array("\(AppFolderTests.directory)/\(app)/apns-key.p8".utf8)] = Array(
                try TestKeys.p256.get().utf8)
        }
        let catalog = AppFolderTests.catalog(files)
        #expect(catalog.refresh().count == 2)
        #expect(catalog.standing(ofApp: Self.composed).context?.apnsTopic == "com.example.composed")
        #expect(catalog.standing(ofApp: Self.decomposed).context?.apnsTopic == "com.example.decomposed")
    }

    @Test func theLiveClientsOfCanonicallyEquivalentAppsAreTwo() {
        var live = LiveApps<String>(maximum: 4, idleMillis: 1000)
        #expect(live.value(for: Self.composed, generation: 1, nowMillis: 0) { "composed" } == "composed")
        #expect(live.value(for: Self.decomposed, generation: 1, nowMillis: 0) { "decomposed" } == "decomposed")
        #expect(live.count == 2)
    }
}
