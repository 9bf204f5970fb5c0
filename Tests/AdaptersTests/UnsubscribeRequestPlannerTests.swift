import DeviceRegistry
import KafkaTypes
import PushCore
import PushPipeline
import TestSupport
import Testing

@testable import Adapters

/// The fan-out stage's handling of an unsubscribe request: compare-and-delete in the registry partition it was read
/// from, only for the client the request is keyed by and only of that partition; anything else dead-lettered.
@Suite struct UnsubscribeRequestPlannerTests {
    static let partitions = 6
    static let dead = String(repeating: "0d", count: 32)
    static let fresh = String(repeating: "0f", count: 32)

    /// A client of `app` in `partition`.
    static func client(in partition: Int32, app: String = "A") -> ClientKey {
        (0..<500).map { ClientKey(appID: app, clientID: "c\($0)") }
            .first { ClientPartitioner.partition(of: $0, partitions: partitions) == partition }
            ?? ClientKey(appID: app, clientID: "")
    }

    /// The request for `client` as the input stage writes it, read back from the partition it was placed in.
    static func read(_ request: UnsubscribeRequest, from partition: Int32? = nil, key: [UInt8]? = nil) -> KafkaRecord {
        let written = request.record(topic: "push.fanout", partitions: partitions)
        return KafkaRecord(
            topic: written.topic, partition: partition ?? written.partition ?? -1, offset: 0, key: key ?? written.key,
            value: written.value, headers: written.headers)
    }

    let store = MemoryDeviceStore()
    let counts = UnsubscribeRequestCounts()

    func planner(restored: Set<Int32>) -> UnsubscribeRequestPlanner<FakePlanner> {
        let store = store
        return UnsubscribeRequestPlanner(
            inner: FakePlanner(), partitions: Self.partitions,
            holders: { restored.contains($0) ? store : nil },
            placement: RegistryPlacement(topic: "push.devices", partitioning: .client) { Self.partitions },
            counts: counts)
    }

    func subscribe(_ client: ClientKey, token: String, type: SubscriptionType = .ios, device: String = "D1") {
        let subscription = Subscription(
            appID: client.appID, clientID: client.clientID, type: type, token: token, deviceID: device)
        store.apply(.put(subscription.key, subscription))
    }

    func plan(_ record: KafkaRecord, restored: Set<Int32>) -> Result<PlannedEvent<String>, UndecodableEvent> {
        planner(restored: restored).prepare(record).plan(nowMillis: 0)
    }

    @Test func aRequestTombstonesItsClientsKeysThatStillHoldTheTokenAndARepeatFindsNothing() throws {
        let client = Self.client(in: 2)
        subscribe(client, token: Self.dead, device: "D1")
        // Subscribed again with a new token, the same token as a PushKit device, the same client id in another app:
        // none of them is deleted by an APNs answer for this app's client.
        subscribe(client, token: Self.fresh, device: "D2")
        subscribe(client, token: Self.dead, type: .iosVoip, device: "D1")
        subscribe(ClientKey(appID: "B", clientID: client.clientID), token: Self.dead)
        let request = UnsubscribeRequest(client: client, platform: .apns, token: Self.dead, messageId: "m-1")
        let planned = try plan(Self.read(request), restored: [2]).get()
        #expect(planned.devices.isEmpty)
        #expect(planned.messageId == "m-1")
        #expect(
            planned.forwarded.map { String(decoding: $0.key ?? [], as: UTF8.self) } == ["A/\(client.clientID)/ios/D1"])
        #expect(planned.forwarded.allSatisfy { $0.topic == "push.devices" && $0.value.isEmpty && $0.partition == 2 })
        #expect(counts[.deleted] == 1)

        let key = try #require(DeviceKey(text: "A/\(client.clientID)/ios/D1"))
        store.apply(.delete(key))
        let repeated = try plan(Self.read(request), restored: [2]).get()
        #expect(repeated.forwarded.isEmpty)
        #expect(counts[.none] == 1)
    }

    @Test func forgedOrMalformedRequestsAreDeadLetteredWithoutTheToken() {
        let client = Self.client(in: 2)
        let other = Self.client(in: 3)
        subscribe(client, token: Self.dead)
        subscribe(other, token: Self.dead)
        let request = UnsubscribeRequest(client: client, platform: .apns, token: Self.dead, messageId: "m")
        let foreign = UnsubscribeRequest(client: other, platform: .apns, token: Self.dead, messageId: "m")
        var unknown = Self.read(request)
        unknown.headers = [KafkaHeader(name: UnsubscribeRequest.header, text: "delete-everything")]
        var malformed = Self.read(request)
        malformed.value = Array(#"{"appID": "A", "clientId": "x", "platform": "nokia", "token": "t"}"#.utf8)
        let cases: [(KafkaRecord, String)] = [
            // Keyed by the held client, naming another one (of partition 3) in its value.
            (
                Self.read(foreign, from: 2, key: Array(client.description.utf8)),
                "an unsubscribe request of partition 2 is not keyed by its client"
            ),
            // Keyed and named consistently, read from a partition that is not the client's.
            (Self.read(foreign, from: 2), "an unsubscribe request of partition 2 names a client of partition 3"),
            (unknown, "a fan-out control record of partition 2 is of an unknown kind"),
            (malformed, "an unsubscribe request of partition 2 is not one"),
        ]
        for (record, message) in cases {
            guard case .failure(let refused) = plan(record, restored: [2, 3]) else {
                Issue.record("\(message): planned")
                continue
            }
            #expect(refused.reason == .decodeError)
            #expect(refused.message == message)
            #expect(!refused.message.contains(Self.dead))
        }
        // A partition not restored here deletes nothing.
        guard case .failure(let notHeld) = plan(Self.read(request), restored: [3]) else {
            Issue.record("planned in a partition not held")
            return
        }
        #expect(notHeld.message == "an unsubscribe request of partition 2, not restored here")
        #expect(counts[.deleted] == 0 && counts[.none] == 0)
    }

    @Test func aRecordWithoutTheHeaderIsTheInnerPlanners() throws {
        let record = KafkaRecord(topic: "push.fanout", partition: 0, offset: 0, key: nil, value: Array("m;d1".utf8))
        let planned = try plan(record, restored: [0]).get()
        #expect(planned.devices.map(\.target.userId) == ["u-d1"])
    }

    @Test func aRequestReadsBackAsWritten() {
        let request = UnsubscribeRequest(
            client: ClientKey(appID: "", clientID: "a/b"), platform: .fcm, token: "t", messageId: "m")
        #expect(UnsubscribeRequest(json: request.json()) == request)
        #expect(UnsubscribeRequest(json: Array(#"{"appID": "", "clientId": "a", "platform": "fcm"}"#.utf8)) == nil)
    }
}
