import DeviceRegistry
import Foundation
import PushCore
import TestSupport
import Testing

@Suite struct PartitionCopiesTests {
    @Test func aCopysNameCarriesItsPartitionAndTheCount() {
        let partition = RegistryPartition(3, of: 8)
        #expect(PartitionCopies.directoryName(of: partition) == "partition-3-of-8")
        #expect(PartitionCopies.partition(ofDirectoryName: "partition-3-of-8") == partition)
    }

    @Test(arguments: [
        "partition-3", "partition-8-of-8", "partition--1-of-8", "partition-03-of-8", "data.mdb", "partition-3-of-x",
        "partition-3-of-8-old", "push-worker.lock",
    ])
    func otherNamesAreNoCopy(name: String) {
        #expect(PartitionCopies.partition(ofDirectoryName: name) == nil)
    }

    @Test func theLeastRecentlyUsedIdleCopiesBeyondTheRetainedAreRemovedNeverAHeldOne() {
        let copies = [
            PartitionCopies.Copy(partition: .init(0, of: 8), lastUsed: 100),
            .init(partition: .init(1, of: 8), lastUsed: 300),
            .init(partition: .init(2, of: 8), lastUsed: 200),
            .init(partition: .init(3, of: 8), lastUsed: 50),
            .init(partition: .init(0, of: 4), lastUsed: 400),
        ]
        let held: Set<RegistryPartition> = [.init(3, of: 8)]
        #expect(
            PartitionCopies.surplus(copies, held: held, retained: 2) == [.init(2, of: 8), .init(0, of: 8)])
        #expect(PartitionCopies.surplus(copies, held: held, retained: 4).isEmpty)
        #expect(PartitionCopies.surplus(copies, held: held, retained: 0).count == 4)
        #expect(PartitionCopies.surplus(copies, held: held, retained: -1).count == 4)
    }

    @Test func theDirectoryListsItsCopiesRemovesOneAndIsHeldByOneOpener() throws {
        let root = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = try PartitionCopiesDirectory(path: root.path)
        let copy = try directory.copy(of: RegistryPartition(1, of: 6))
        _ = try directory.copy(of: RegistryPartition(2, of: 6))
        try Data("x".utf8).write(to: URL(fileURLWithPath: copy + "/data.mdb"))
        try FileManager.default.createDirectory(
            at: root.appending(path: "not-a-copy"), withIntermediateDirectories: false)
        #expect(Set(directory.copies().map(\.partition)) == [.init(1, of: 6), .init(2, of: 6)])
        try directory.remove(RegistryPartition(1, of: 6))
        #expect(directory.copies().map(\.partition) == [.init(2, of: 6)])
        #expect(!FileManager.default.fileExists(atPath: copy))
        #expect(throws: RegistryStoreError.self) { try PartitionCopiesDirectory(path: root.path) }
    }
}
