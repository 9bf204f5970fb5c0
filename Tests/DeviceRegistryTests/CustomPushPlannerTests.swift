import DeviceRegistry
import Essentials
import Foundation
import PushCore
import PushPipeline
import TestSupport
import Testing

/// Custom pushes resolved through the registry and built from their payload; other records pass through.
@Suite struct CustomPushPlannerTests {
    static let nowMillis: Int64 = 1_795_953_660_000
    let store = MemoryDeviceStore()

    var planner: CustomPushPlanner {
        CustomPushPlanner(
            events: CorePlanner(rules: .standard, context: Self.context), directory: store,
            apps: SingleApp(Self.context))
    }

    static let context = ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "demo-project")

    func subscribe(_ subscriptions: Subscription...) { subscribe(subscriptions) }

    func subscribe(_ subscriptions: [Subscription]) {
        for subscription in subscriptions { store.apply(.put(subscription.key, subscription)) }
    }

    func plan(_ json: String) throws -> PlannedEvent<ProviderSend> {
        try planner.plan(Array(json.utf8), nowMillis: Self.nowMillis).get()
    }

    static func push(_ clients: [String], payload: String = #"{"alert": "Hi", "type": "promo"}"#) -> String {
        let list = clients.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"id": "p-1", "appID": "SampleApp", "clients": [\#(list)], "payload": \#(payload)}"#
    }

    /// `SampleApp` with a folder of its own, usable or not.
    struct SampleApp: AppContexts {
        var usable: Bool

        func standing(ofApp appID: String) -> AppStanding {
            usable
                ? .ready(ProviderContext(apnsTopic: "com.example.sample", fcmProjectID: "sample-project"))
                : .refused(.misconfigured)
        }
    }

    @Test func aCustomPushGoesWithItsAppsTopicAndProjectAndOneOfAnAppThatCannotSendIsRejected() throws {
        subscribe(Registry.sampleClients)
        func plan(usable: Bool) throws -> PlannedEvent<ProviderSend> {
            let planner = CustomPushPlanner(
                events: CorePlanner(rules: .standard, context: Self.context), directory: store,
                apps: SampleApp(usable: usable))
            return try planner.plan(Array(Self.push(["aaa"]).utf8), nowMillis: Self.nowMillis).get()
        }
        let event = try plan(usable: true)
        #expect(event.devices.map(\.target.app) == ["sample-project", "com.example.sample"])
        guard case .send(.apns, let apns) = event.devices[1].decision else {
            Issue.record("the APNs device was not sent")
            return
        }
        #expect(apns.appID == "SampleApp")
        #expect(apns.request.header("apns-topic") == "com.example.sample")
        let refused = try plan(usable: false)
        #expect(refused.outline == ["aaa fcm rejected app_misconfigured", "aaa apns rejected app_misconfigured"])
        #expect(refused.devices.map(\.target.app) == [nil, nil])
    }

    @Test func eachClientGetsItsDevicesOrASkipThatSaysWhyAndMutesDoNotApply() throws {
        subscribe(
            Registry.sampleClients + [
                Registry.subscription(client: "fff", type: .iosVoip, device: "V6", token: Registry.apnsToken(6))
            ])
        for settings in [
            ClientSettings(appID: "SampleApp", clientID: "bbb", mutedRooms: ["p-1"]),
            ClientSettings(appID: "SampleApp", clientID: "ddd", notificationEnabled: false),
        ] {
            store.apply(.put(settings.key, settings))
        }
        let event = try plan(Self.push(["aaa", "bbb", "ccc", "ddd", "eee", "fff", "aaa"]))
        #expect(
            event.outline == [
                "aaa fcm send fcm", "aaa apns send apns", "bbb apns send apns", "eee web skipped platform",
                "fff apns-voip skipped platform", "ccc none skipped no_devices", "ddd apns skipped notifications_off",
            ])
        #expect(event.messageId == "p-1")
        #expect(event.roomId == "p-1")
        #expect(event.type == "promo")
        #expect(event.appID == "SampleApp")
        #expect(event.devices[1].target.app == "com.example.chat")
        #expect(event.devices[0].target.app == "demo-project")
        #expect(planner.deviceBound(Array(Self.push(["aaa", "ccc"]).utf8)) == 3)
    }

    @Test func aPreparedPushLooksItsClientsUpOnceForItsBoundAndItsPlan() throws {
        subscribe(Registry.sampleClients)
        let directory = IMKITPlannerTests.CountingDirectory(inner: store)
        let planner = CustomPushPlanner(
            events: CorePlanner(rules: .standard, context: Self.context), directory: directory,
            apps: SingleApp(Self.context))
        let prepared = planner.prepare(Array(Self.push(["aaa", "ccc"]).utf8))
        #expect(prepared.deviceBound == 3)
        let event = try prepared.plan(nowMillis: Self.nowMillis).get()
        #expect(event.devices.count == 3)
        #expect(directory.lookups == ["SampleApp/aaa", "SampleApp/ccc"])
        let undecodable = planner.prepare(Array(#"{"id": "p", "clients": "aaa", "payload": {}}"#.utf8))
        #expect(undecodable.deviceBound == 1)
        #expect(throws: UndecodableEvent.self) { try undecodable.plan(nowMillis: Self.nowMillis).get() }
    }

    @Test func aPushWithoutTypeIsCountedAsCustom() throws {
        subscribe(Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)))
        #expect(try plan(Self.push(["aaa"], payload: #"{"alert": "Hi"}"#)).type == "custom")
    }

    @Test func theRetryRecordListsTheDevicesLeftAndIsPlannedWithoutTheRegistry() throws {
        subscribe(
            Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)),
            Registry.subscription(client: "aaa", type: .fcm, device: "P1", token: Registry.fcmToken(2)),
            Registry.subscription(client: "bbb", device: "D2", token: Registry.apnsToken(3)))
        let event = try plan(Self.push(["aaa", "bbb", "ccc"]))
        let narrowed = event.narrowed([1, 2, 3])
        let record = try JSONParser.parse(narrowed)
        #expect(record["id"]?.stringValue == "p-1")
        #expect(record["payload"]?["type"]?.stringValue == "promo")
        #expect(
            String(decoding: JSONWriter.encode(record["recipients"] ?? .null), as: UTF8.self)
                == #"[{"userId":"aaa","devices":[{"platform":"apns","token":"\#(Registry.apnsToken(1))"}]},{"userId":"bbb","devices":[{"platform":"apns","token":"\#(Registry.apnsToken(3))"}]}]"#
        )
        store.apply(.delete(Registry.subscription(client: "bbb", device: "D2", token: Registry.apnsToken(3)).key))
        let retried = try planner.plan(narrowed, nowMillis: Self.nowMillis).get()
        #expect(retried.outline == ["aaa apns send apns", "bbb apns send apns"])
        guard case .send(_, let first) = event.devices[1].decision,
            case .send(_, let again) = retried.devices[0].decision
        else {
            Issue.record("not sent")
            return
        }
        #expect(first.request == again.request)
    }

    @Test func aBadDeviceInARetryRecordIsDeadLetteredAlone() throws {
        let json =
            #"{"id": "p-2", "clients": ["aaa"], "payload": {"alert": "Hi"}, "recipients": [{"userId": "aaa", "devices": [{"platform": "apns", "token": "zz"}, {"platform": "fcm", "token": "t"}]}]}"#
        let event = try plan(json)
        #expect(event.outline == ["aaa apns dead decode_error", "aaa fcm send fcm"])
        let dead = try JSONParser.parse(event.narrowed([0]))
        #expect(
            String(decoding: JSONWriter.encode(dead["recipients"] ?? .null), as: UTF8.self)
                == #"[{"userId":"aaa","devices":[{"platform":"apns","token":"zz"}]}]"#)
    }

    @Test func aBadCustomPushIsUndecodableWithItsField() {
        let result = planner.plan(
            Array(#"{"clients": ["a"], "payload": {"badge": "3"}}"#.utf8), nowMillis: Self.nowMillis)
        #expect(throws: UndecodableEvent(reason: .decodeError, message: "payload.badge: must be a number, not string"))
        {
            try result.get()
        }
    }

    @Test func anEventWithAClientsMemberGoesToTheEventPlannerUntouched() throws {
        let event = try plan(
            #"{"id": "m", "type": "text", "room": {"id": "r"}, "sender": {"id": "s"}, "clients": ["x"], "recipients": [{"userId": "u", "devices": [{"platform": "fcm", "token": "t"}]}]}"#
        )
        #expect(event.messageId == "m")
        #expect(event.outline == ["u fcm send fcm"])
    }
}
