import DeviceRegistry
import Foundation
import PushCore
import TestSupport
import Testing

/// The LMDB store opened on a directory another opening holds, or on a damaged `data.mdb`: refused naming the lock,
/// or the file moved aside and the store started empty — never a fault inside LMDB.
@Suite struct LMDBStoreOpeningTests {
    static let megabyte = 1024 * 1024
    static let pageSize = 4096

    /// A directory whose store holds `count` devices, loaded and closed; and the devices.
    static func filledDirectory(_ count: Int) throws -> (String, [Subscription]) {
        let path = try Repository.temporaryDirectory().path
        let store = try LMDBDeviceStore(path: path, mapBytes: 4 * megabyte)
        let subscriptions = (0..<count).map {
            Registry.subscription(client: "client-\($0)", device: "D\($0 % 3)", token: Registry.apnsToken($0))
        }
        for start in stride(from: 0, to: count, by: 1000) {
            let batch = subscriptions[start..<min(start + 1000, count)]
            try store.apply(
                RegistryBatch(
                    topic: "push.devices", devices: batch.map { .put($0.key, $0) }, offsets: [0: Int64(start + 1000)]))
        }
        try store.loaded()
        store.close()
        return (path, subscriptions)
    }

    static func data(_ path: String) -> String { path + "/data.mdb" }

    static func size(_ file: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
    }

    /// Writes `bytes` over the file at `offset`.
    static func overwrite(_ file: String, at offset: Int, with bytes: [UInt8]) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
    }

    /// Opens the store in `path` and reads every device back: whatever the file held, this returns.
    static func openAndReadEverything(_ path: String, _ subscriptions: [Subscription]) throws -> LMDBDeviceStore {
        let store = try LMDBDeviceStore(path: path, mapBytes: 4 * megabyte)
        for subscription in subscriptions {
            _ = store.subscriptions(of: subscription.key.client)
            _ = store.token(of: subscription.key)
        }
        _ = store.offsets(of: "push.devices")
        let phone = Registry.subscription(client: "after", device: "D", token: Registry.apnsToken(1))
        try store.apply(RegistryBatch(topic: "push.devices", devices: [.put(phone.key, phone)], offsets: [0: 1]))
        return store
    }

    @Test func aSecondOpeningOfTheDirectoryIsRefusedNamingTheLock() throws {
        let path = try Repository.temporaryDirectory().path
        let first = try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        let error = #expect(throws: RegistryStoreError.self) {
            try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        }
        #expect(
            error?.message == "\(path)/push-worker.lock: another process uses this store (one worker per directory)")
        first.close()
        let second = try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        #expect(second.recovery == nil)
        second.close()
    }

    @Test func aSoundFileIsOpenedAsItIs() throws {
        let (path, subscriptions) = try Self.filledDirectory(3000)
        let store = try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        #expect(store.recovery == nil)
        #expect(store.statistics.devices == 3000)
        #expect(store.token(of: subscriptions[2999].key) == Registry.apnsToken(2999))
    }

    @Test func aFileCutToHalfItsSizeIsMovedAsideAndTheStoreLoadsAgain() throws {
        let (path, subscriptions) = try Self.filledDirectory(3000)
        let half = try Self.size(Self.data(path)) / 2
        #expect(truncate(Self.data(path), off_t(half)) == 0)
        let store = try Self.openAndReadEverything(path, subscriptions)
        let recovery = try #require(store.recovery)
        #expect(recovery.reason == "truncated")
        #expect(recovery.file == Self.data(path))
        #expect(recovery.movedTo == path + "/data.mdb.damaged")
        #expect(recovery.detail.hasPrefix("the file has \(half) bytes, its meta page names "))
        #expect(try Self.size(recovery.movedTo) == half)
        #expect(store.isFirstLoad)
        #expect(store.statistics.devices == 1)
        #expect(store.offsets(of: "push.devices") == [0: 1])
    }

    @Test(arguments: [0, 7])
    func garbageOverEverySeventhPageIsMovedAside(first: Int) throws {
        let (path, subscriptions) = try Self.filledDirectory(3000)
        var generator = SeededGenerator(seed: UInt64(first + 1))
        let pages = try Self.size(Self.data(path)) / Self.pageSize
        for page in stride(from: first, to: pages, by: 7) {
            try Self.overwrite(
                Self.data(path), at: page * Self.pageSize,
                with: (0..<Self.pageSize).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        let store = try Self.openAndReadEverything(path, subscriptions)
        #expect(store.recovery?.reason == (first == 0 ? "meta" : "page"))
        #expect(store.statistics.devices == 1)
    }

    /// Random bytes over random pages, or single bytes changed anywhere: each file is opened as it is or moved
    /// aside, and reading every device back, then writing, returns.
    @Test(arguments: 0..<32)
    func anyDamageIsOpenedOrMovedAsideWithoutAFault(seed: Int) throws {
        let (path, subscriptions) = try Self.filledDirectory(1500)
        var generator = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 17)
        let size = try Self.size(Self.data(path))
        if seed % 2 == 0 {
            for _ in 0..<3 {
                let page = Int.random(in: 2..<size / Self.pageSize, using: &generator)
                try Self.overwrite(
                    Self.data(path), at: page * Self.pageSize,
                    with: (0..<Self.pageSize).map { _ in UInt8.random(in: 0...255, using: &generator) })
            }
        } else {
            for _ in 0..<40 {
                try Self.overwrite(
                    Self.data(path), at: Int.random(in: 0..<size, using: &generator),
                    with: [UInt8.random(in: 0...255, using: &generator)])
            }
        }
        let store = try Self.openAndReadEverything(path, subscriptions)
        if store.recovery == nil { #expect(store.statistics.devices >= 1) } else { #expect(store.isFirstLoad) }
    }

    @Test func aDamagedFileThatCannotBeMovedStopsTheOpeningNamingIt() throws {
        let (path, _) = try Self.filledDirectory(500)
        #expect(truncate(Self.data(path), off_t(3 * Self.pageSize)) == 0)
        // A directory of the damaged name where the file would go: the move fails.
        try FileManager.default.createDirectory(atPath: path + "/data.mdb.damaged/x", withIntermediateDirectories: true)
        let error = #expect(throws: RegistryStoreError.self) {
            try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        }
        #expect(error?.message.hasPrefix("\(path)/data.mdb: damaged (the file has \(3 * Self.pageSize) bytes") == true)
        #expect(error?.message.hasSuffix("and cannot be moved aside: Is a directory") == true)
    }
}
