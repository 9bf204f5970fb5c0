import DeviceRegistry
import Foundation
import PushCore
import TestSupport
import Testing

/// Ids that differ only by Unicode normalization are different ids in both stores: `café` as NFC (`caf\u{E9}`) and
/// as NFD (`cafe\u{301}`) are two clients, two devices, two apps, whatever `String`'s canonical equivalence says.
@Suite struct ByteIDStoreTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    enum Kind: String, CaseIterable {
        case memory
        case lmdb

        func make() throws -> any DeviceStore {
            switch self {
            case .memory: MemoryDeviceStore()
            case .lmdb: try LMDBDeviceStore(path: try Repository.temporaryDirectory().path, mapBytes: 4 << 20)
            }
        }
    }

    static func put(_ subscriptions: [Subscription], in store: any DeviceStore) throws {
        try store.apply(RegistryBatch(topic: "push.devices", devices: subscriptions.map { .put($0.key, $0) }))
    }

    /// The device ids' and tokens' bytes of `subscriptions`: `Subscription`'s `==` compares `String`s.
    static func bytes(_ subscriptions: [Subscription]) -> [[UInt8]] {
        subscriptions.map { Array(($0.clientID + "|" + $0.deviceID + "|" + $0.token).utf8) }
    }

    @Test func theIdsOfThisSuiteAreEqualStringsOfOtherBytes() {
        #expect(Self.composed == Self.decomposed)
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
    }

    @Test(arguments: Kind.allCases)
    func twoClientsOfCanonicallyEquivalentIdsKeepTheirOwnDevices(kind: Kind) throws {
        let store = try kind.make()
        let first = Registry.subscription(client: Self.composed, device: "D", token: Registry.apnsToken(1))
        let second = Registry.subscription(client: Self.decomposed, device: "D", token: Registry.apnsToken(2))
        try Self.put([first, second], in: store)
        #expect(Self.bytes(store.subscriptions(of: first.key.client)) == Self.bytes([first]))
        #expect(Self.bytes(store.subscriptions(of: second.key.client)) == Self.bytes([second]))
        #expect(store.token(of: first.key) == Registry.apnsToken(1))
        #expect(store.token(of: second.key) == Registry.apnsToken(2))
        #expect(store.keys(ofClient: Self.composed, holding: Registry.apnsToken(2), on: .apns).isEmpty)
        #expect(store.statistics.devices == 2)
        #expect(store.statistics.clients == 2)
        try store.apply(RegistryBatch(topic: "push.devices", devices: [.delete(second.key)]))
        #expect(Self.bytes(store.subscriptions(of: first.key.client)) == Self.bytes([first]))
        #expect(store.subscriptions(of: second.key.client).isEmpty)
    }

    @Test(arguments: Kind.allCases)
    func twoDevicesOfCanonicallyEquivalentIdsAreTwoDevicesInByteOrder(kind: Kind) throws {
        let store = try kind.make()
        let composed = Registry.subscription(client: "c", device: Self.composed, token: Registry.apnsToken(1))
        let decomposed = Registry.subscription(client: "c", device: Self.decomposed, token: Registry.apnsToken(2))
        try Self.put([composed, decomposed], in: store)
        // `e` (0x65) comes before `é`'s first byte (0xC3).
        #expect(Self.bytes(store.subscriptions(of: composed.key.client)) == Self.bytes([decomposed, composed]))
        #expect(store.token(of: composed.key) == Registry.apnsToken(1))
        #expect(store.token(of: decomposed.key) == Registry.apnsToken(2))
        #expect(store.statistics.devices == 2)
        try store.apply(RegistryBatch(topic: "push.devices", devices: [.delete(composed.key)]))
        #expect(Self.bytes(store.subscriptions(of: composed.key.client)) == Self.bytes([decomposed]))
    }

    @Test(arguments: Kind.allCases)
    func twoAppsOfCanonicallyEquivalentIdsAreCountedAndSearchedApart(kind: Kind) throws {
        let store = try kind.make()
        let first = Registry.subscription(app: Self.composed, client: "c", device: "D", token: Registry.apnsToken(1))
        let second = Registry.subscription(app: Self.decomposed, client: "c", device: "D", token: Registry.apnsToken(1))
        try Self.put([first, second], in: store)
        #expect(store.statistics.devicesByAppAndType.count == 2)
        #expect(store.subscriptions(of: ClientKey(appID: Self.composed, clientID: "c")).map(\.appID.utf8.count) == [5])
        let keys = store.keys(ofClient: "c", holding: Registry.apnsToken(1), on: .apns)
        #expect(keys.map { Array($0.appID.utf8) } == [Array(Self.decomposed.utf8), Array(Self.composed.utf8)])
    }

    @Test(arguments: Kind.allCases)
    func settingsOfCanonicallyEquivalentClientsAreTwoRecords(kind: Kind) throws {
        let store = try kind.make()
        let off = ClientSettings(appID: "A", clientID: Self.composed, notificationEnabled: false)
        let on = ClientSettings(appID: "A", clientID: Self.decomposed, notificationEnabled: true)
        try store.apply(RegistryBatch(topic: "push.clients", clients: [.put(off.key, off), .put(on.key, on)]))
        #expect(store.settings(of: off.key)?.notificationEnabled == false)
        #expect(store.settings(of: on.key)?.notificationEnabled == true)
        #expect(store.statistics.settings == 2)
    }

    @Test func aRecordWhoseValueNamesTheKeysClientInOtherBytesIsAKeyMismatch() throws {
        let tables = RegistryTables(store: MemoryDeviceStore())
        let keyed = Registry.subscription(client: Self.composed, device: Self.composed, token: Registry.apnsToken(1))
        for (client, device) in [(Self.decomposed, Self.composed), (Self.composed, Self.decomposed)] {
            var other = keyed
            other.clientID = client
            other.deviceID = device
            let error = try tables.applyDevice(key: Registry.key(keyed), value: Registry.value(other))
            #expect(error?.reason == .keyMismatch)
        }
        let settingsKey = Array(ClientKey(appID: "A", clientID: Self.composed).description.utf8)
        let settingsValue = Array(#"{"appID": "A", "clientId": "\#(Self.decomposed)"}"#.utf8)
        #expect(try tables.applyClient(key: settingsKey, value: settingsValue)?.reason == .keyMismatch)
        #expect(tables.store.statistics == RegistryStatistics())
        #expect(
            tables.ignored == [
                .init(topic: .devices, reason: .keyMismatch): 2, .init(topic: .clients, reason: .keyMismatch): 1,
            ])
    }
}
