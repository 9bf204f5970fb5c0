import DeviceRegistry
import Essentials
import KafkaTypes
import PushCore
import PushPipeline
import TestSupport
import Testing

@testable import Adapters

/// The `assigned` scope's dead tokens: deleted here when their client's registry partition is restored here, else
/// routed as an unsubscribe request to the fan-out partition of their client, in the invalid-token record's batch.
@Suite struct DeadTokenRouteTests {
    static let dead = String(repeating: "0d", count: 32)

    static func deadRecord(user: String, appID: String?) -> KafkaProducerRecord {
        let record = InvalidTokenRecord(
            platform: "apns", token: dead, tokenHash: SHA256.tokenHash(dead), userId: user, app: "com.example",
            appID: appID, reason: "Unregistered", invalidSinceMillis: 1_700_000_000_000, messageId: "m", worker: "w")
        return KafkaProducerRecord(topic: "push.invalid-tokens", key: Array(record.key.utf8), value: record.json())
    }

    @Test func inTheAssignedScopeADeadTokenOfAClientNotRestoredHereIsRoutedToItsPartition() async throws {
        let partitions = 6
        let store = MemoryDeviceStore()
        let here = ClientKey(appID: "A", clientID: "aaa")
        let restored = ClientPartitioner.partition(of: here, partitions: partitions)
        let there = try #require(
            (0..<100).map { ClientKey(appID: "A", clientID: "c\($0)") }
                .first { ClientPartitioner.partition(of: $0, partitions: partitions) != restored })
        let phone = Subscription(appID: "A", clientID: "aaa", type: .ios, token: Self.dead, deviceID: "D1")
        store.apply(.put(phone.key, phone))
        let counts = UnsubscribeRequestCounts()
        let inner = FakeSink()
        let sink = UnsubscribingDeadTokens(
            inner: inner, holders: store, invalidTokensTopic: "push.invalid-tokens",
            placement: RegistryPlacement(topic: "push.devices", partitioning: .client) { partitions },
            route: DeadTokenRoute(
                fanoutTopic: "push.fanout", partitions: partitions,
                holders: { $0 == restored ? store : nil }, counts: counts))
        try await sink.produce([
            Self.deadRecord(user: "aaa", appID: "A"),
            Self.deadRecord(user: there.clientID, appID: "A"),
        ])
        // The client restored here: its key tombstoned here, nothing routed.
        #expect(
            inner.records(on: "push.devices").map { String(decoding: $0.key ?? [], as: UTF8.self) } == ["A/aaa/ios/D1"])
        // The other: a request in its client's fan-out partition, keyed by its client key, for the pod holding it.
        let requests = inner.records(on: "push.fanout")
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.key == Array(there.description.utf8))
        #expect(request.partition == ClientPartitioner.partition(of: there, partitions: partitions))
        #expect(request.headers == [KafkaHeader(name: UnsubscribeRequest.header, text: UnsubscribeRequest.kind)])
        #expect(
            UnsubscribeRequest(json: request.value)
                == UnsubscribeRequest(client: there, platform: .apns, token: Self.dead, messageId: "m"))
        #expect(counts[.routed] == 1)
    }

    @Test func aRecordThatDoesNotNameItsAppIsNotRouted() async throws {
        let counts = UnsubscribeRequestCounts()
        let inner = FakeSink()
        let sink = UnsubscribingDeadTokens(
            inner: inner, holders: MemoryDeviceStore(), invalidTokensTopic: "push.invalid-tokens",
            placement: RegistryPlacement(topic: "push.devices", partitioning: .client) { 6 },
            route: DeadTokenRoute(fanoutTopic: "push.fanout", partitions: 6, holders: { _ in nil }, counts: counts))
        let records = [Self.deadRecord(user: "aaa", appID: nil)]
        try await sink.produce(records)
        #expect(inner.records == records)
        #expect(counts[.routed] == 0)
    }
}
