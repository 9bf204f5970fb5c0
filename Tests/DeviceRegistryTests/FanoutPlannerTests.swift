import DeviceRegistry
import Essentials
import Foundation
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
    var fanout: FanoutPlanner<ProviderSend> { fanout() }

    /// The input stage's planner within `budget` and event `limits`.
    func fanout(budget: FanoutBudget = FanoutBudget(), limits: EventLimits = EventLimits()) -> FanoutPlanner<
        ProviderSend
    > {
        FanoutPlanner(
            events: CustomPushPlanner(
                events: CorePlanner(rules: .standard, context: Self.context), directory: MemoryDeviceStore(),
                apps: SingleApp(Self.context)),
            topic: "push.fanout", placement: { $0.clientID == "aaa" ? 4 : 1 }, budget: budget,
            imkitDecoder: IMKITMessageDecoder(limits: limits), customDecoder: CustomPushDecoder(limits: limits))
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

    /// The planner knows the size of every fan-out record before it makes one: v2 and v1 IMKIT messages, custom pushes.
    @Test func theRecordSizesAreKnownBeforeTheRecordsAreMade() throws {
        let now = Date(timeIntervalSince1970: Double(Self.nowMillis) / 1000)
        let v2 = try IMKITMessageDecoder().decode(
            Array(IMKITPlannerTests.message(["aaa", "b\\\"b", "sss", "ccc"], extra: #", "x": [1e3, "é"]"#).utf8),
            now: now)
        let v1 = try IMKITMessageDecoder().decode(
            Array(
                #"{"_id": "m-3", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "toClient": "aaa"}"#.utf8),
            now: now)
        let push = try CustomPushDecoder().decode(
            Array(#"{"appID": "SampleApp", "clients": ["aaa", "bbb"], "payload": {"alert": "Hi"}}"#.utf8))
        for message in [v2, v1] {
            #expect(RecipientFanout.valueBytes(of: message) == RecipientFanout.records(of: message).map(\.value.count))
        }
        #expect(RecipientFanout.valueBytes(of: push) == RecipientFanout.records(of: push).map(\.value.count))
        #expect(RecipientFanout.valueBytes(of: v2).count == 3)
    }

    /// 10,000 clients of an 850 KB message would be 8.5 GB of records: over the budget, the message is dead-lettered
    /// `fanout_too_large` before any record is made; at the budget, it is fanned out.
    @Test func aFanOutOverTheByteBudgetIsRefusedWhole() throws {
        let clients = (0..<200).map { "client-\($0)" }
        let message = IMKITPlannerTests.message(
            clients, extra: #", "body": "\#(String(repeating: "x", count: 10_000))""#)
        let sizes = try fanout.plan(Array(message.utf8), nowMillis: Self.nowMillis).get().forwarded.map(\.value.count)
        let total = sizes.reduce(0, +)
        #expect(total > 2_000_000)
        let fits = fanout(budget: FanoutBudget(maximumBytes: total))
        #expect(try fits.plan(Array(message.utf8), nowMillis: Self.nowMillis).get().forwarded.count == 200)
        let over = fanout(budget: FanoutBudget(maximumBytes: total - 1))
        let refused = over.plan(Array(message.utf8), nowMillis: Self.nowMillis)
        guard case .failure(let undecodable) = refused else {
            Issue.record("planned \(refused)")
            return
        }
        #expect(undecodable.reason == .fanoutTooLarge)
        #expect(undecodable.message.contains("200 clients"))
        let push = #"{"appID": "SampleApp", "clients": ["aaa", "bbb"], "payload": {"alert": "Hi"}}"#
        let pushBytes = try fanout.plan(Array(push.utf8), nowMillis: Self.nowMillis).get().forwarded.map(\.value.count)
        let tight = fanout(budget: FanoutBudget(maximumBytes: pushBytes.reduce(0, +) - 1))
        guard case .failure(let pushRefused) = tight.plan(Array(push.utf8), nowMillis: Self.nowMillis) else {
            Issue.record("the push was fanned out")
            return
        }
        #expect(pushRefused.reason == .fanoutTooLarge)
    }

    /// A message over the event limit is refused as in the `all` scope's decoder, unparsed; one whose fan-out record
    /// would be over it (a custom push's derived id added) is refused too: the producer would refuse the record.
    @Test func aFanOutRecordNeverExceedsTheEventLimit() throws {
        let limits = EventLimits(maximumRecordBytes: 2_000)
        let message = IMKITPlannerTests.message(
            ["aaa"], extra: #", "body": "\#(String(repeating: "x", count: 2_000))""#)
        guard case .failure(let large) = fanout(limits: limits).plan(Array(message.utf8), nowMillis: Self.nowMillis)
        else {
            Issue.record("the large message was fanned out")
            return
        }
        #expect(large.reason == .recordTooLarge)
        let shape = #"{"appID":"SampleApp","clients":["aaa"],"payload":{"alert":""}}"#
        let padding = String(repeating: "x", count: 2_000 - shape.utf8.count)
        let push = #"{"appID":"SampleApp","clients":["aaa"],"payload":{"alert":"\#(padding)"}}"#
        #expect(push.utf8.count == 2_000)
        let planned = fanout(limits: limits).plan(Array(push.utf8), nowMillis: Self.nowMillis)
        guard case .failure(let grown) = planned else {
            Issue.record("planned a record of \((try? planned.get())?.forwarded.first?.value.count ?? 0) bytes")
            return
        }
        #expect(grown.reason == .recordTooLarge)
    }

    /// A fan-out record holds a unit of the device budget per started 4 KiB; the bound before decoding estimates them.
    @Test func theDeviceBoundCountsTheFanOutRecordsBytes() throws {
        let message = IMKITPlannerTests.message(
            ["aaa", "bbb", "ccc"], extra: #", "body": "\#(String(repeating: "x", count: 9_000))""#)
        let records = try fanout.plan(Array(message.utf8), nowMillis: Self.nowMillis).get().forwarded
        #expect(records.map { FanoutBudget.units(ofValueBytes: $0.value.count) } == [3, 3, 3])
        #expect(fanout.deviceBound(Array(message.utf8)) == 9)
        #expect(fanout.deviceBound(Array(IMKITPlannerTests.message(["aaa", "bbb"]).utf8)) == 2)
    }
}
