import DeviceRegistry
import PushCore
import TestSupport
import Testing

@Suite struct MemoryDeviceStoreTests {
    @Test func theSameTypeAndDeviceIdReplacesTheToken() {
        let store = MemoryDeviceStore()
        let first = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        var second = first
        second.token = Registry.apnsToken(2)
        store.apply(.put(first.key, first))
        store.apply(.put(second.key, second))
        #expect(store.subscriptions(of: first.key.client) == [second])
        #expect(store.token(of: first.key) == Registry.apnsToken(2))
        #expect(store.statistics.devices == 1)
    }

    @Test func aSubscriptionKeepsEveryFieldInTheCompactList() {
        let store = MemoryDeviceStore()
        var phone = Registry.subscription(client: "aaa", device: "D/1", token: Registry.apnsToken(1), locale: "ko-KR")
        phone.sandbox = true
        phone.topic = "com.example.chat"
        phone.updatedAtMS = 1_764_590_400_000
        let tablet = Registry.subscription(client: "aaa", type: .fcm, device: "T", token: Registry.fcmToken(2))
        store.apply(.put(phone.key, phone))
        store.apply(.put(tablet.key, tablet))
        #expect(store.subscriptions(of: phone.key.client) == [tablet, phone])
        #expect(store.token(of: phone.key) == Registry.apnsToken(1))
        #expect(store.keys(ofClient: "aaa", holding: Registry.fcmToken(2), on: .fcm) == [tablet.key])
    }

    @Test func aBrowsersSubscriptionIsFoundByItsTokenOnTheWebPlatform() {
        let store = MemoryDeviceStore()
        let browser = Registry.subscription(client: "bbb", type: .web, device: "B1", token: Fixture.webToken)
        store.apply(.put(browser.key, browser))
        #expect(store.keys(ofClient: "bbb", holding: Fixture.webToken, on: .web) == [browser.key])
        #expect(store.keys(ofClient: "bbb", holding: Fixture.webToken, on: .fcm).isEmpty)
    }

    @Test func anotherTypeOrDeviceIsAnotherSubscription() {
        let store = MemoryDeviceStore()
        let phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        let voip = Registry.subscription(client: "aaa", type: .iosVoip, device: "D1", token: Registry.apnsToken(2))
        let tablet = Registry.subscription(client: "aaa", type: .fcm, device: "T", token: Registry.fcmToken(3))
        for subscription in [tablet, voip, phone] { store.apply(.put(subscription.key, subscription)) }
        // Stable order: by type, then device id.
        #expect(store.subscriptions(of: phone.key.client) == [tablet, phone, voip])
        #expect(store.statistics.devices == 3)
        #expect(store.statistics.clients == 1)
    }

    @Test func aTombstoneUnsubscribesAndEmptiesTheClient() {
        let store = MemoryDeviceStore()
        let phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        store.apply(.put(phone.key, phone))
        store.apply(.delete(phone.key))
        store.apply(.delete(phone.key))
        #expect(store.subscriptions(of: phone.key.client).isEmpty)
        #expect(store.token(of: phone.key) == nil)
        #expect(store.statistics == RegistryStatistics())
    }

    @Test func devicesAreScopedToTheirApp() {
        let store = MemoryDeviceStore()
        let phone = Registry.subscription(app: "A", client: "aaa", device: "D1", token: Registry.apnsToken(1))
        store.apply(.put(phone.key, phone))
        #expect(store.subscriptions(of: ClientKey(appID: "B", clientID: "aaa")).isEmpty)
        #expect(store.subscriptions(of: ClientKey(appID: "", clientID: "aaa")).isEmpty)
        #expect(store.statistics.devicesByAppAndType == [.init(appID: "A", type: .ios): 1])
    }

    @Test func settingsArePutAndReset() {
        let store = MemoryDeviceStore()
        let settings = ClientSettings(appID: "A", clientID: "aaa", mutedRooms: ["r"], notificationEnabled: false)
        store.apply(.put(settings.key, settings))
        #expect(store.settings(of: settings.key) == settings)
        #expect(store.statistics.settings == 1)
        store.apply(.delete(settings.key))
        #expect(store.settings(of: settings.key) == nil)
        #expect(store.statistics.bytes == 0)
    }

    @Test func bytesAreTheClientsCompactLists() {
        let store = MemoryDeviceStore()
        let phone = Registry.subscription(app: "A", client: "c", device: "D", token: Registry.apnsToken(1))
        store.apply(.put(phone.key, phone))
        // "ios", "D", then the stored value: version, flags and the 64-character token, each text after its length.
        #expect(store.statistics.bytes == (1 + 3) + (1 + 1) + 1 + (1 + 1 + 1 + 64))
        store.apply(.delete(phone.key))
        #expect(store.statistics.bytes == 0)
    }
}

@Suite struct RegistryTablesTests {
    @Test func recordsThatCannotBeTrustedAreCountedAndChangeNothing() throws {
        let tables = RegistryTables(store: MemoryDeviceStore())
        let phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        #expect(try tables.applyDevice(key: Registry.key(phone), value: Registry.value(phone)) == nil)
        var other = phone
        other.deviceID = "D2"
        #expect(try tables.applyDevice(key: Registry.key(phone), value: Registry.value(other))?.reason == .keyMismatch)
        var bad = phone
        bad.token = "not-hex"
        #expect(try tables.applyDevice(key: Registry.key(phone), value: Registry.value(bad))?.reason == .badToken)
        #expect(try tables.applyClient(key: Array("x".utf8), value: nil)?.reason == .badKey)
        #expect(tables.store.token(of: phone.key) == Registry.apnsToken(1))
        #expect(
            tables.ignored == [
                .init(topic: .devices, reason: .keyMismatch): 1, .init(topic: .devices, reason: .badToken): 1,
                .init(topic: .clients, reason: .badKey): 1,
            ])
    }

    @Test func aLargeBatchDecodedInSlicesAppliesInRecordOrder() throws {
        let tables = RegistryTables(store: MemoryDeviceStore())
        let count = RegistryTables.parallelDecodingThreshold * 3 + 1
        var records: [RegistryRecord] = []
        for index in 0..<count {
            // One key for all: the last good record wins; every seventh record is bad, every eleventh a tombstone.
            var phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(index))
            if index % 7 == 0 { phone.token = "bad-\(index)" }
            let value = index % 11 == 0 ? nil : Registry.value(phone)
            records.append(RegistryRecord(key: Registry.key(phone), value: value, partition: 0, offset: Int64(index)))
        }
        let ignored = try tables.apply(records, of: .devices, named: "push.devices")
        let bad = (0..<count).filter { $0 % 7 == 0 && $0 % 11 != 0 }
        #expect(ignored.map(\.record.offset) == bad.map { Int64($0) })
        #expect(tables.ignored == [.init(topic: .devices, reason: .badToken): bad.count])
        let last = try #require((0..<count).last { $0 % 7 != 0 || $0 % 11 == 0 })
        let key = DeviceKey(appID: "SampleApp", clientID: "aaa", type: .ios, deviceID: "D1")
        #expect(tables.store.token(of: key) == (last % 11 == 0 ? nil : Registry.apnsToken(last)))
        #expect(tables.store.offsets(of: "push.devices") == [0: Int64(count)])
        #expect(tables.recordsRead(of: .devices) == count)
    }

    @Test func tablesOfOnePartitionIgnoreTheClientsOfOthersAsForeignAndStillAdvance() throws {
        let partition = RegistryPartition(2, of: 6)
        let tables = RegistryTables(store: MemoryDeviceStore(), partition: partition)
        let clients = (0..<60).map { "c\($0)" }
        let mine = clients.filter { partition.holds(ClientKey(appID: "SampleApp", clientID: $0)) }
        #expect(!mine.isEmpty && mine.count < clients.count)
        // Twice the parallel threshold, so the sliced decoding checks the partition too.
        var records: [RegistryRecord] = []
        for (index, client) in Array(repeating: clients, count: 9).joined().enumerated() {
            let phone = Registry.subscription(client: client, device: "D1", token: Registry.apnsToken(index))
            records.append(
                RegistryRecord(
                    key: Registry.key(phone), value: Registry.value(phone), partition: 2, offset: Int64(index)))
        }
        #expect(records.count >= RegistryTables.parallelDecodingThreshold * 2)
        let ignored = try tables.apply(records, of: .devices, named: "push.devices")
        #expect(ignored.count == records.count - mine.count * 9)
        #expect(ignored.allSatisfy { $0.error.reason == .foreign })
        #expect(tables.store.statistics.clients == mine.count)
        #expect(tables.store.offsets(of: "push.devices") == [2: Int64(records.count)])
        let foreignSettings = try #require(clients.first { !mine.contains($0) })
        let settings = Array(ClientKey(appID: "SampleApp", clientID: foreignSettings).description.utf8)
        #expect(try tables.applyClient(key: settings, value: nil)?.reason == .foreign)
        #expect(
            tables.ignored == [
                .init(topic: .devices, reason: .foreign): ignored.count, .init(topic: .clients, reason: .foreign): 1,
            ])
    }

    @Test func anEmptyValueIsATombstone() throws {
        let tables = RegistryTables(store: MemoryDeviceStore())
        let phone = Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1))
        try tables.applyDevice(key: Registry.key(phone), value: Registry.value(phone))
        #expect(try tables.applyDevice(key: Registry.key(phone), value: []) == nil)
        #expect(tables.store.statistics.devices == 0)
    }

    @Test func loadedOnceBothTopicsAreCaughtUp() {
        let tables = RegistryTables(store: MemoryDeviceStore())
        tables.setLag(5, of: .devices)
        #expect(!tables.isLoaded)
        tables.markLoaded(.devices)
        #expect(!tables.isLoaded)
        #expect(tables.lag(of: .devices) == 0)
        tables.markLoaded(.clients)
        #expect(tables.isLoaded)
    }
}
