import DeviceRegistry
import Essentials
import KafkaTypes
import PushCore
import PushPipeline
import Synchronization
import TestSupport
import Testing

@testable import Adapters

@Suite struct UnsubscribingDeadTokensTests {
    static let dead = String(repeating: "0d", count: 32)
    static let fresh = String(repeating: "0f", count: 32)

    static func deadRecord(user: String, token: String, platform: String = "apns") -> KafkaProducerRecord {
        let record = InvalidTokenRecord(
            platform: platform, token: token, tokenHash: SHA256.tokenHash(token), userId: user, app: "com.example",
            reason: "Unregistered", invalidSinceMillis: 1_700_000_000_000, messageId: "m", worker: "w")
        return KafkaProducerRecord(topic: "push.invalid-tokens", key: Array(record.key.utf8), value: record.json())
    }

    @Test func aDeadTokenTombstonesTheKeysThatStillHoldItAndNoOthers() async throws {
        let store = MemoryDeviceStore()
        let subscriptions = [
            Subscription(appID: "A", clientID: "aaa", type: .ios, token: Self.dead, deviceID: "D1"),
            Subscription(appID: "B", clientID: "aaa", type: .ios, token: Self.dead, deviceID: "D1"),
            // Subscribed again with a new token: it survives the old token's death.
            Subscription(appID: "A", clientID: "bbb", type: .ios, token: Self.fresh, deviceID: "D2"),
            // The same token as a PushKit device: another platform, untouched by an APNs answer.
            Subscription(appID: "A", clientID: "aaa", type: .iosVoip, token: Self.dead, deviceID: "D1"),
        ]
        for subscription in subscriptions { store.apply(.put(subscription.key, subscription)) }
        let inner = FakeSink()
        let sink = UnsubscribingDeadTokens(
            inner: inner, holders: store, invalidTokensTopic: "push.invalid-tokens",
            placement: RegistryPlacement(topic: "push.devices", partitioning: .key) { 1 })
        let receipt = KafkaProducerRecord(topic: "push.receipts", key: nil, value: Array("{}".utf8))
        try await sink.produce([
            receipt, Self.deadRecord(user: "aaa", token: Self.dead), Self.deadRecord(user: "bbb", token: Self.dead),
        ])
        let tombstones = inner.records(on: "push.devices")
        #expect(tombstones.map { String(decoding: $0.key ?? [], as: UTF8.self) } == ["A/aaa/ios/D1", "B/aaa/ios/D1"])
        #expect(tombstones.allSatisfy { $0.value.isEmpty && $0.partition == nil })
        #expect(inner.records.count == 5)
    }

    @Test func byClientEachTombstoneGoesToItsClientsPartitionAskingTheCountOnce() async throws {
        let store = MemoryDeviceStore()
        for app in ["A", "B", "C", "D"] {
            let phone = Subscription(appID: app, clientID: "aaa", type: .ios, token: Self.dead, deviceID: "D1")
            store.apply(.put(phone.key, phone))
        }
        let asked = Mutex(0)
        let inner = FakeSink()
        let sink = UnsubscribingDeadTokens(
            inner: inner, holders: store, invalidTokensTopic: "push.invalid-tokens",
            placement: RegistryPlacement(topic: "push.devices", partitioning: .client) {
                asked.withLock { $0 += 1 }
                return 6
            })
        try await sink.produce([Self.deadRecord(user: "aaa", token: Self.dead)])
        try await sink.produce([Self.deadRecord(user: "aaa", token: Self.dead)])
        let tombstones = inner.records(on: "push.devices")
        #expect(tombstones.count == 8)
        for tombstone in tombstones {
            let key = try #require(DeviceKey(text: String(decoding: tombstone.key ?? [], as: UTF8.self)))
            #expect(tombstone.partition == ClientPartitioner.partition(of: key.client, partitions: 6))
        }
        // Four apps' clients of one id spread over more than one partition: the partition is the client's, not one.
        #expect(Set(tombstones.map(\.partition)).count > 1)
        #expect(asked.withLock { $0 } == 1)
    }

    @Test func withoutRegistryDevicesTheRecordsPassUnchanged() async throws {
        let inner = FakeSink()
        let sink = UnsubscribingDeadTokens(
            inner: inner, holders: MemoryDeviceStore(), invalidTokensTopic: "push.invalid-tokens",
            placement: RegistryPlacement(topic: "push.devices", partitioning: .key) { 1 })
        let records = [Self.deadRecord(user: "aaa", token: Self.dead)]
        try await sink.produce(records)
        #expect(inner.records == records)
    }
}
