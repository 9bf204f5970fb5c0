import DeviceRegistry
import Essentials
import KafkaTypes
import PushCore
import PushPipeline
import TestSupport
import Testing

/// The `assigned` scope's input stage: IMKIT messages and custom pushes become one fan-out record per recipient
/// client, and planning those records resolves the same devices, with the same receipt ids, as the `all` scope.
@Suite struct FanoutPlannerTests {
    static let nowMillis: Int64 = 1_795_953_660_000
    static let context = ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "demo-project")
    let store = MemoryDeviceStore()

    init() {
        for subscription in Registry.sampleClients + [
            Registry.subscription(client: "sss", device: "D6", token: Registry.apnsToken(6))
        ] {
            store.apply(.put(subscription.key, subscription))
        }
        let muting = ClientSettings(appID: "SampleApp", clientID: "bbb", mutedRooms: ["demo-room"])
        store.apply(.put(muting.key, muting))
        let silent = ClientSettings(appID: "SampleApp", clientID: "ddd", notificationEnabled: false)
        store.apply(.put(silent.key, silent))
    }

    /// The `all` scope's planner: custom pushes and IMKIT messages resolved where they are read.
    var resolving: IMKITPlanner<ProviderSend> {
        IMKITPlanner(
            events: CustomPushPlanner(
                events: CorePlanner(rules: .standard, context: Self.context), directory: store,
                apps: SingleApp(Self.context)),
            directory: store)
    }

    /// The input stage's planner, placing each client in partition 1 unless its id is `aaa` (partition 4).
    var fanout: FanoutPlanner<ProviderSend> {
        FanoutPlanner(
            events: CustomPushPlanner(
                events: CorePlanner(rules: .standard, context: Self.context), directory: MemoryDeviceStore(),
                apps: SingleApp(Self.context)),
            topic: "push.fanout", placement: { $0.clientID == "aaa" ? 4 : 1 })
    }

    /// Each device's receipt id as its first attempt would write it, and its decision.
    static func receipts(_ event: PlannedEvent<ProviderSend>) -> [String] {
        zip(event.outline, event.devices).map { outline, device in
            outline + " "
                + ReceiptID.make(messageId: event.messageId, device: device.target, attempts: 1, replayRunId: nil)
        }
    }

    @Test func anIMKITMessageBecomesOneRecordPerClientAndNoSend() throws {
        let message = IMKITPlannerTests.message(["aaa", "bbb", "sss", "aaa", "ccc"])
        let planned = try fanout.plan(Array(message.utf8), nowMillis: Self.nowMillis).get()
        #expect(planned.devices.isEmpty)
        #expect(planned.messageId == "m-1")
        #expect(planned.forwarded.map(\.topic) == ["push.fanout", "push.fanout", "push.fanout"])
        #expect(
            planned.forwarded.map { String(decoding: $0.key ?? [], as: UTF8.self) } == [
                "SampleApp/aaa", "SampleApp/bbb", "SampleApp/ccc",
            ])
        #expect(planned.forwarded.map(\.partition) == [4, 1, 1])
    }

    @Test func theFannedOutRecordsResolveExactlyWhatTheWholeMessageResolves() throws {
        let message = IMKITPlannerTests.message(["aaa", "bbb", "ccc", "ddd", "eee", "sss"])
        let whole = try resolving.plan(Array(message.utf8), nowMillis: Self.nowMillis).get()
        let records = try fanout.plan(Array(message.utf8), nowMillis: Self.nowMillis).get().forwarded
        let parts = try records.map { try resolving.plan($0.value, nowMillis: Self.nowMillis).get() }
        #expect(parts.allSatisfy { $0.messageId == "m-1" && $0.roomId == "demo-room" })
        #expect(Set(parts.flatMap(Self.receipts)) == Set(Self.receipts(whole)))
        #expect(parts.flatMap(Self.receipts).count == Self.receipts(whole).count)
        #expect(!parts.flatMap(\.devices).contains { $0.target.userId == "sss" })
    }

    @Test func aCustomPushWithoutAnIdKeepsItsDerivedIdInEveryRecord() throws {
        let push = #"{"appID": "SampleApp", "clients": ["aaa", "bbb"], "payload": {"alert": "Hi"}}"#
        let whole = try resolving.plan(Array(push.utf8), nowMillis: Self.nowMillis).get()
        let planned = try fanout.plan(Array(push.utf8), nowMillis: Self.nowMillis).get()
        #expect(planned.devices.isEmpty)
        #expect(planned.messageId == whole.messageId)
        let parts = try planned.forwarded.map { try resolving.plan($0.value, nowMillis: Self.nowMillis).get() }
        #expect(parts.map(\.messageId) == [whole.messageId, whole.messageId])
        #expect(parts.flatMap(Self.receipts) == Self.receipts(whole))
    }

    @Test func recordsThatListTheirDevicesAreNotFannedOut() throws {
        let retry =
            #"{"id": "p-1", "clients": ["aaa"], "payload": {"alert": "Hi"}, "recipients": [{"userId": "aaa", "devices": [{"platform": "fcm", "token": "fcm-token-2"}]}]}"#
        let custom = try fanout.plan(Array(retry.utf8), nowMillis: Self.nowMillis).get()
        #expect(custom.forwarded.isEmpty)
        #expect(custom.outline == ["aaa fcm send fcm"])
        let json = ChatEvents.text(1, room: "r-1", devices: [.fcm(token: "fcm-token-9")])
        let event = try fanout.plan(Array(json.utf8), nowMillis: Self.nowMillis).get()
        #expect(event.forwarded.isEmpty)
        #expect(event.outline == ["u-2 fcm send fcm"])
    }

    @Test func anInvalidIMKITMessageIsUndecodableAsInTheAllScope() {
        let message = #"{"_id": "m-2", "messageType": "text", "room": "r", "sender": {"_id": "s"}}"#
        let result = fanout.plan(Array(message.utf8), nowMillis: Self.nowMillis)
        guard case .failure(let undecodable) = result else {
            Issue.record("planned \(result)")
            return
        }
        guard case .failure(let expected) = resolving.plan(Array(message.utf8), nowMillis: Self.nowMillis) else {
            Issue.record("the all scope planned it")
            return
        }
        #expect(undecodable == expected)
    }
}
