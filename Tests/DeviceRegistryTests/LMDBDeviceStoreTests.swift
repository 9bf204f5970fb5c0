import DeviceRegistry
import Foundation
import PushCore
import TestSupport
import Testing

@Suite struct LMDBDeviceStoreTests {
    static let megabyte = 1024 * 1024

    /// A store in a fresh temporary folder, and the folder.
    static func store(mapBytes: Int = 4 * megabyte) throws -> (LMDBDeviceStore, String) {
        let path = try Repository.temporaryDirectory().path
        return (try LMDBDeviceStore(path: path, mapBytes: mapBytes), path)
    }

    static func put(_ subscriptions: Subscription..., in store: LMDBDeviceStore) throws {
        try store.apply(RegistryBatch(topic: "push.devices", devices: subscriptions.map { .put($0.key, $0) }))
    }

    @Test func aSubscriptionIsFoundByItsClientWithEveryField() throws {
        let (store, _) = try Self.store()
        var phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1), locale: "ko-KR")
        phone.sandbox = true
        phone.topic = "com.example.chat"
        phone.updatedAtMS = 1_764_590_400_000
        try Self.put(phone, in: store)
        #expect(store.subscriptions(of: phone.key.client) == [phone])
        #expect(store.token(of: phone.key) == Registry.apnsToken(1))
        #expect(store.statistics.devices == 1)
        #expect(store.statistics.clients == 1)
    }

    @Test func theSameTypeAndDeviceIdReplacesTheToken() throws {
        let (store, _) = try Self.store()
        let first = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        var second = first
        second.token = Registry.apnsToken(2)
        try Self.put(first, in: store)
        try Self.put(second, in: store)
        #expect(store.subscriptions(of: first.key.client) == [second])
        #expect(store.token(of: first.key) == Registry.apnsToken(2))
        #expect(store.statistics.devices == 1)
    }

    @Test func devicesComeInTheMemoryStoresOrder() throws {
        let (store, _) = try Self.store()
        let memory = MemoryDeviceStore()
        let subscriptions = [
            Registry.subscription(client: "aaa", type: .iosVoip, device: "D1", token: Registry.apnsToken(2)),
            Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)),
            Registry.subscription(client: "aaa", device: "a/b", token: Registry.apnsToken(3)),
            Registry.subscription(client: "aaa", type: .fcm, device: "T", token: Registry.fcmToken(3)),
        ]
        for subscription in subscriptions {
            try Self.put(subscription, in: store)
            memory.apply(.put(subscription.key, subscription))
        }
        let client = ClientKey(appID: "SampleApp", clientID: "aaa")
        #expect(store.subscriptions(of: client) == memory.subscriptions(of: client))
        #expect(store.statistics.devices == 4)
        #expect(store.statistics.clients == 1)
    }

    @Test func aTombstoneUnsubscribesAndEmptiesTheClient() throws {
        let (store, _) = try Self.store()
        let phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        try Self.put(phone, in: store)
        try store.apply(RegistryBatch(topic: "push.devices", devices: [.delete(phone.key), .delete(phone.key)]))
        #expect(store.subscriptions(of: phone.key.client).isEmpty)
        #expect(store.token(of: phone.key) == nil)
        var statistics = store.statistics
        statistics.bytes = 0
        #expect(statistics == RegistryStatistics())
    }

    @Test func aClientPrefixDoesNotMatchALongerClientId() throws {
        let (store, _) = try Self.store()
        let longer = Registry.subscription(client: "aaa2", device: "D1", token: Registry.apnsToken(1))
        try Self.put(longer, in: store)
        #expect(store.subscriptions(of: ClientKey(appID: "SampleApp", clientID: "aaa")).isEmpty)
        try store.apply(
            RegistryBatch(
                topic: "push.devices",
                devices: [.delete(DeviceKey(appID: "SampleApp", clientID: "aaa", type: .ios, deviceID: "D1"))]))
        #expect(store.statistics.clients == 1)
    }

    @Test func clientsWhoseIdsPrefixOneAnotherAreCountedApart() throws {
        let (store, _) = try Self.store()
        try Self.put(
            Registry.subscription(client: "aaa2", device: "D1", token: Registry.apnsToken(1)),
            Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(2)),
            Registry.subscription(client: "aa", device: "D1", token: Registry.apnsToken(3)),
            Registry.subscription(client: "aaa", device: "D2", token: Registry.apnsToken(4)),
            in: store)
        #expect(store.statistics.clients == 3)
        try store.apply(
            RegistryBatch(
                topic: "push.devices",
                devices: [.delete(DeviceKey(appID: "SampleApp", clientID: "aaa", type: .ios, deviceID: "D1"))]))
        #expect(store.statistics.clients == 3)
        try store.apply(
            RegistryBatch(
                topic: "push.devices",
                devices: [.delete(DeviceKey(appID: "SampleApp", clientID: "aaa", type: .ios, deviceID: "D2"))]))
        #expect(store.statistics.clients == 2)
    }

    @Test func devicesAreScopedToTheirApp() throws {
        let (store, _) = try Self.store()
        let phone = Registry.subscription(app: "A", client: "aaa", device: "D1", token: Registry.apnsToken(1))
        let other = Registry.subscription(app: "B", client: "aaa", device: "D1", token: Registry.apnsToken(1))
        try Self.put(phone, other, in: store)
        #expect(store.subscriptions(of: ClientKey(appID: "A", clientID: "aaa")) == [phone])
        #expect(store.subscriptions(of: ClientKey(appID: "", clientID: "aaa")).isEmpty)
        #expect(
            store.statistics.devicesByAppAndType == [
                .init(appID: "A", type: .ios): 1, .init(appID: "B", type: .ios): 1,
            ])
        #expect(store.statistics.clients == 2)
        #expect(store.keys(ofClient: "aaa", holding: Registry.apnsToken(1), on: .apns) == [phone.key, other.key])
        #expect(store.keys(ofClient: "aaa", holding: Registry.apnsToken(2), on: .apns).isEmpty)
    }

    @Test func settingsArePutAndReset() throws {
        let (store, _) = try Self.store()
        let settings = ClientSettings(
            appID: "A", clientID: "aaa", mutedRooms: ["r", "s"], notificationEnabled: false,
            locale: LanguageTag(lenient: "ja"), badge: 3)
        try store.apply(RegistryBatch(topic: "push.clients", clients: [.put(settings.key, settings)]))
        #expect(store.settings(of: settings.key) == settings)
        #expect(store.settings(of: ClientKey(appID: "B", clientID: "aaa")) == nil)
        #expect(store.statistics.settings == 1)
        try store.apply(RegistryBatch(topic: "push.clients", clients: [.delete(settings.key)]))
        #expect(store.settings(of: settings.key) == nil)
        #expect(store.statistics.settings == 0)
    }

    @Test func offsetsAreKeptPerTopicAndPartition() throws {
        let (store, _) = try Self.store()
        #expect(store.offsets(of: "push.devices").isEmpty)
        try store.apply(RegistryBatch(topic: "push.devices", offsets: [0: 10, 3: 7]))
        try store.apply(RegistryBatch(topic: "push.devices", offsets: [0: 12]))
        try store.apply(RegistryBatch(topic: "push.devices-old", offsets: [0: 99]))
        try store.apply(RegistryBatch(topic: "push.clients", offsets: [1: 5]))
        #expect(store.offsets(of: "push.devices") == [0: 12, 3: 7])
        #expect(store.offsets(of: "push.clients") == [1: 5])
    }

    @Test func aStoreOfOtherTopicsIsRefusedWithThem() throws {
        let (store, path) = try Self.store()
        try store.check(topics: ["push.devices", "push.clients"])
        try store.apply(RegistryBatch(topic: "push.devices", offsets: [0: 10]))
        try store.apply(RegistryBatch(topic: "push.clients", offsets: [0: 2]))
        try store.check(topics: ["push.devices", "push.clients"])
        let error = #expect(throws: RegistryStoreError.self) {
            try store.check(topics: ["devices.v2", "push.clients"])
        }
        #expect(
            error?.message
                == "\(path): the store holds the registry of the topics push.devices, not devices.v2, push.clients: "
                + "give it a new directory")
    }

    @Test func aReopenedStoreHoldsTheDataTheOffsetsAndTheCounts() throws {
        let (store, path) = try Self.store()
        let phone = Registry.subscription(app: "A", client: "aaa", device: "D1", token: Registry.apnsToken(1))
        let settings = ClientSettings(appID: "A", clientID: "aaa", mutedRooms: ["r"])
        try store.apply(RegistryBatch(topic: "push.devices", devices: [.put(phone.key, phone)], offsets: [0: 1]))
        try store.apply(RegistryBatch(topic: "push.clients", clients: [.put(settings.key, settings)], offsets: [0: 4]))
        let before = store.statistics
        store.close()
        #expect(store.subscriptions(of: phone.key.client).isEmpty)
        #expect(throws: RegistryStoreError.self) { try Self.put(phone, in: store) }

        let reopened = try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        #expect(reopened.subscriptions(of: phone.key.client) == [phone])
        #expect(reopened.settings(of: settings.key) == settings)
        #expect(reopened.offsets(of: "push.devices") == [0: 1])
        #expect(reopened.offsets(of: "push.clients") == [0: 4])
        #expect(reopened.statistics == before)
    }

    static func hasMarker(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/" + LMDBDeviceStore.loadingMarker)
    }

    @Test func aNewStoreLoadsUnderAMarkerThatTheEndOfTheLoadRemoves() throws {
        let (store, path) = try Self.store()
        let phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        #expect(store.isFirstLoad)
        #expect(Self.hasMarker(path))
        try store.apply(RegistryBatch(topic: "push.devices", devices: [.put(phone.key, phone)], offsets: [0: 1]))
        try store.loaded()
        #expect(!store.isFirstLoad)
        #expect(!Self.hasMarker(path))
        // Opened again in place: everything is still there, and later batches are written.
        #expect(store.token(of: phone.key) == Registry.apnsToken(1))
        var tablet = phone
        tablet.deviceID = "D2"
        try store.apply(RegistryBatch(topic: "push.devices", devices: [.put(tablet.key, tablet)], offsets: [0: 2]))
        #expect(store.statistics.devices == 2)
        try store.loaded()
        store.close()
        let reopened = try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        #expect(!reopened.isFirstLoad)
        #expect(reopened.offsets(of: "push.devices") == [0: 2])
        #expect(reopened.statistics.devices == 2)
    }

    @Test func aFirstLoadThatStoppedWithoutClosingIsLoadedAgain() throws {
        let (store, path) = try Self.store()
        let phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        try store.apply(RegistryBatch(topic: "push.devices", devices: [.put(phone.key, phone)], offsets: [0: 1]))
        // As after `kill -9` or a machine crash: the marker is still there beside the file.
        let copy = try Repository.temporaryDirectory().path
        for file in ["data.mdb", LMDBDeviceStore.loadingMarker] {
            try FileManager.default.copyItem(atPath: path + "/" + file, toPath: copy + "/" + file)
        }
        store.close()
        let reloaded = try LMDBDeviceStore(path: copy, mapBytes: 4 * Self.megabyte)
        #expect(reloaded.isFirstLoad)
        #expect(reloaded.offsets(of: "push.devices").isEmpty)
        #expect(reloaded.statistics.devices == 0)
        #expect(reloaded.token(of: phone.key) == nil)
    }

    @Test func closingDuringAFirstLoadFlushesItForTheNextStart() throws {
        let (store, path) = try Self.store()
        let phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        try store.apply(RegistryBatch(topic: "push.devices", devices: [.put(phone.key, phone)], offsets: [0: 1]))
        store.close()
        #expect(!Self.hasMarker(path))
        let reopened = try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        #expect(!reopened.isFirstLoad)
        #expect(reopened.offsets(of: "push.devices") == [0: 1])
        #expect(reopened.token(of: phone.key) == Registry.apnsToken(1))
    }

    @Test func theTablesEndTheStoresLoadOnceBothTopicsAreRead() throws {
        let (store, path) = try Self.store()
        let tables = RegistryTables(store: store)
        #expect(tables.markLoaded(.devices) == nil)
        #expect(store.isFirstLoad)
        #expect(tables.markLoaded(.clients) == nil)
        #expect(!store.isFirstLoad)
        #expect(!Self.hasMarker(path))
    }

    @Test func aFullMapGrowsAndKeepsEveryRecord() throws {
        let (store, _) = try Self.store(mapBytes: 64 * 1024)
        let subscriptions = (0..<2000).map {
            Registry.subscription(client: "client-\($0)", device: "D", token: Registry.apnsToken($0))
        }
        try store.apply(
            RegistryBatch(
                topic: "push.devices", devices: subscriptions.map { .put($0.key, $0) }, offsets: [0: 2000]))
        #expect(store.mapBytes > 64 * 1024)
        #expect(store.statistics.devices == 2000)
        #expect(store.token(of: subscriptions[1999].key) == Registry.apnsToken(1999))
        #expect(store.offsets(of: "push.devices") == [0: 2000])
    }

    @Test func theBytesAreThePagesTheFileUses() throws {
        let (store, _) = try Self.store()
        let empty = store.statistics.bytes
        let subscriptions = (0..<500).map {
            Registry.subscription(client: "client-\($0)", type: .fcm, device: "P", token: Registry.fcmToken($0))
        }
        try store.apply(RegistryBatch(topic: "push.devices", devices: subscriptions.map { .put($0.key, $0) }))
        #expect(empty > 0)
        #expect(store.statistics.bytes > empty)
    }

    @Test func releasingResidentPagesUnmapsWhatTheLoadTouched() throws {
        let (store, path) = try Self.store()
        let subscriptions = (0..<3000).map {
            Registry.subscription(client: "client-\($0)", type: .fcm, device: "P", token: Registry.fcmToken($0))
        }
        try store.apply(RegistryBatch(topic: "push.devices", devices: subscriptions.map { .put($0.key, $0) }))
        _ = subscriptions.map { store.token(of: $0.key) }
        #expect(try Self.residentKiB(of: path + "/data.mdb") > 0)
        store.releaseResidentPages()
        #expect(try Self.residentKiB(of: path + "/data.mdb") == 0)
        #expect(store.token(of: subscriptions[7].key) == Registry.fcmToken(7))
    }

    /// The resident KiB of this process's mappings of `file` (`/proc/self/smaps`).
    static func residentKiB(of file: String) throws -> Int {
        // Read to the end: /proc files say they are empty, and a read by their size would stop short.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        var inFile = false
        var total = 0
        for line in smaps.split(separator: "\n") {
            if line.first?.isHexDigit == true, line.contains("-") {
                inFile = line.hasSuffix(" " + file)
            } else if inFile, line.hasPrefix("Rss:") {
                total += Int(line.split(separator: " ")[1]) ?? 0
            }
        }
        return total
    }

    @Test func aFileThatIsNotLMDBIsMovedAsideWithTheReason() throws {
        let path = try Repository.temporaryDirectory().path
        try Data(repeating: 0x5A, count: 64 * 1024).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        let store = try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        let recovery = try #require(store.recovery)
        #expect(recovery.file == path + "/data.mdb")
        #expect(recovery.movedTo == path + "/data.mdb.damaged")
        #expect(recovery.reason == "meta")
        #expect(recovery.detail == "the first meta page is not LMDB's")
        #expect(store.isFirstLoad)
    }

    @Test func anotherApplicationsLMDBFileIsRefused() throws {
        let (store, path) = try Self.store()
        store.close()
        // The same file with its format mark changed, as another program's store would be.
        let file = URL(fileURLWithPath: path + "/data.mdb")
        var bytes = [UInt8](try Data(contentsOf: file))
        let mark = Array("push-worker device store 1".utf8)
        let start = try #require(
            bytes.indices.first { bytes[$0...].starts(with: mark) })
        bytes[start] = UInt8(ascii: "P")
        try Data(bytes).write(to: file)
        let error = #expect(throws: RegistryStoreError.self) {
            try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        }
        #expect(error?.message.contains("not a device store") == true)
    }

    @Test func batchesOfBothTopicsAppliedAtOnceLoseNoCount() async throws {
        let (store, path) = try Self.store()
        let batches = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<batches {
                    let phone = Registry.subscription(
                        client: "c\(index)", device: "D", token: Registry.apnsToken(index))
                    try store.apply(RegistryBatch(topic: "push.devices", devices: [.put(phone.key, phone)]))
                }
            }
            group.addTask {
                for index in 0..<batches {
                    let settings = ClientSettings(appID: "SampleApp", clientID: "c\(index)", badge: index)
                    try store.apply(RegistryBatch(topic: "push.clients", clients: [.put(settings.key, settings)]))
                }
            }
            try await group.waitForAll()
        }
        #expect(store.statistics.devices == batches)
        #expect(store.statistics.clients == batches)
        #expect(store.statistics.settings == batches)
        store.close()
        let reopened = try LMDBDeviceStore(path: path, mapBytes: 4 * Self.megabyte)
        #expect(reopened.statistics.devices == batches)
        #expect(reopened.statistics.settings == batches)
    }

    @Test func tablesResumeTheOffsetsOfTheRecordsTheyRead() throws {
        let (store, _) = try Self.store()
        let tables = RegistryTables(store: store)
        let phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        var bad = phone
        bad.token = "not-hex"
        let ignored = try tables.apply(
            [
                RegistryRecord(key: Registry.key(phone), value: Registry.value(phone), partition: 0, offset: 4),
                RegistryRecord(key: Registry.key(phone), value: Registry.value(bad), partition: 0, offset: 5),
                RegistryRecord(key: Registry.key(phone), value: Registry.value(phone), partition: 2, offset: 0),
            ], of: .devices, named: "push.devices")
        #expect(ignored.map(\.error.reason) == [.badToken])
        // The ignored record is read too: the next offset is past it.
        #expect(store.offsets(of: "push.devices") == [0: 6, 2: 1])
        #expect(tables.recordsRead(of: .devices) == 3)
        #expect(store.token(of: phone.key) == Registry.apnsToken(1))
    }
}
