import DeviceRegistry
import Essentials
import Foundation
import PushCore
import PushPipeline
import TestSupport
import Testing

/// IMKIT messages resolved through the registry and planned by the same planner as chat-message events.
@Suite struct IMKITPlannerTests {
    static let nowMillis: Int64 = 1_795_953_660_000
    let store = MemoryDeviceStore()

    var planner: IMKITPlanner<ProviderSend> {
        IMKITPlanner(
            events: CorePlanner(
                rules: .standard, context: ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "demo-project")),
            directory: store)
    }

    func subscribe(_ subscriptions: Subscription...) { subscribe(subscriptions) }

    func subscribe(_ subscriptions: [Subscription]) {
        for subscription in subscriptions { store.apply(.put(subscription.key, subscription)) }
    }

    func set(_ settings: ClientSettings) { store.apply(.put(settings.key, settings)) }

    func plan(_ json: String) throws -> PlannedEvent<ProviderSend> {
        try planner.plan(Array(json.utf8), nowMillis: Self.nowMillis).get()
    }

    func body(_ device: PlannedDevice<ProviderSend>) -> String {
        guard case .send(_, let send) = device.decision else { return "" }
        return String(decoding: send.request.body, as: UTF8.self)
    }

    static func message(_ clients: [String], type: String = "text", extra: String = "") -> String {
        let list = clients.map { "\"\($0)\"" }.joined(separator: ", ")
        return
            #"{"_id": "m-1", "message": "lala", "room": "demo-room", "roomName": "Demo Room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "\#(type)", "appID": "SampleApp", "messageTimeMS": 1795953600000, "pushToClients": [\#(list)]\#(extra)}"#
    }

    @Test func eachClientGetsItsDevicesOrASkipThatSaysWhy() throws {
        subscribe(
            Registry.sampleClients + [Registry.subscription(client: "sss", device: "D6", token: Registry.apnsToken(6))])
        set(ClientSettings(appID: "SampleApp", clientID: "bbb", mutedRooms: ["demo-room"]))
        set(ClientSettings(appID: "SampleApp", clientID: "ddd", notificationEnabled: false))
        let event = try plan(Self.message(["aaa", "bbb", "ccc", "ddd", "eee", "sss", "aaa"]))
        #expect(
            event.outline == [
                "aaa fcm send fcm", "aaa apns send apns", "bbb apns skipped muted", "eee web skipped platform",
                "ccc none skipped no_devices", "ddd apns skipped notifications_off",
            ])
        #expect(event.messageId == "m-1")
        #expect(event.roomId == "demo-room")
        let noDevices = try #require(event.devices.first { $0.target.userId == "ccc" })
        #expect(noDevices.target.tokenHash == "")
        #expect(event.devices[1].target.tokenHash == SHA256.tokenHash(Registry.apnsToken(1)))
    }

    @Test func theSendsOfAMessageCarryItsAppID() throws {
        subscribe(Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)))
        let event = try plan(Self.message(["aaa"]))
        guard case .send(_, let send) = event.devices.first?.decision else {
            Issue.record("nothing sent")
            return
        }
        #expect(send.appID == "SampleApp")
    }

    @Test func thePlannedEventCarriesTheMessagesAppForTheInvalidationGuard() throws {
        #expect(try plan(Self.message(["aaa"])).appID == "SampleApp")
        let event = #"{"id": "m", "type": "text", "room": {"id": "r"}, "sender": {"id": "s"}, "recipients": []}"#
        #expect(try plan(event).appID == "")
    }

    @Test func theWholeMessageGoesToFCMDataPayload() throws {
        subscribe(Registry.subscription(client: "aaa", type: .android, device: "P1", token: Registry.fcmToken(1)))
        let json = Self.message(["aaa"])
        let event = try plan(json)
        let body = try JSONParser.parse(Array(body(event.devices[0]).utf8))
        let payload = try #require(body["message"]?["data"]?["payload"]?.stringValue)
        #expect(try JSONParser.parse(Array(payload.utf8)) == (try JSONParser.parse(Array(json.utf8))))
    }

    /// IMKIT's push format names the whole message object FCM's `data.payload`; the Message Model has no `data` of its
    /// own, so a member of that name is just another field of the message and is not unwrapped.
    @Test func aBrowsersDataIsTheWholeMessageAsFCMDataPayloadIs() throws {
        subscribe(Registry.subscription(client: "aaa", type: .web, device: "B1", token: Fixture.webToken))
        let json = Self.message(["aaa"], extra: #", "data": {"payload": {"k": "v"}}"#)
        let planner = IMKITPlanner(
            events: CorePlanner(
                rules: .standard,
                context: ProviderContext(
                    apnsTopic: "com.example.chat", fcmProjectID: "demo-project", sendsWebPush: true)),
            directory: store)
        let event = try planner.plan(Array(json.utf8), nowMillis: Self.nowMillis).get()
        #expect(event.outline.count == 1 && event.outline.first?.hasPrefix("aaa web send") == true)
        let plaintext = try JSONParser.parse(Array(body(event.devices[0]).utf8))
        #expect(plaintext["data"] == (try JSONParser.parse(Array(json.utf8))))
    }

    @Test func theLanguageIsTheDevicesElseTheClientsElseTheDefault() throws {
        subscribe(
            Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1), locale: "ko-KR"),
            Registry.subscription(client: "aaa", device: "D2", token: Registry.apnsToken(2)),
            Registry.subscription(client: "bbb", device: "D3", token: Registry.apnsToken(3)))
        set(ClientSettings(appID: "SampleApp", clientID: "aaa", locale: LanguageTag("ja")))
        let event = try plan(Self.message(["aaa", "bbb"], type: "image"))
        #expect(event.outline.allSatisfy { $0.hasSuffix("send apns") })
        #expect(body(event.devices[0]).contains("사진"))
        #expect(body(event.devices[1]).contains("画像"))
        #expect(body(event.devices[2]).contains("sent a photo"))
    }

    @Test func theBadgeIsV1sElseTheClientsElseNone() throws {
        subscribe(
            Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)),
            Registry.subscription(client: "bbb", device: "D2", token: Registry.apnsToken(2)))
        set(ClientSettings(appID: "SampleApp", clientID: "aaa", badge: 3))
        let v2 = try plan(Self.message(["aaa", "bbb"]))
        #expect(body(v2.devices[0]).contains(#""badge":3"#))
        #expect(!body(v2.devices[1]).contains("badge"))
        let v1 = try plan(
            #"{"_id": "m-2", "message": "hello", "room": "demo-room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "toClient": "aaa", "badge": 7, "alert": "SSS says hello"}"#
        )
        #expect(body(v1.devices[0]).contains(#""badge":7"#))
        #expect(body(v1.devices[0]).contains(#""body":"SSS says hello""#))
    }

    @Test func deleteMembersUsesTheSeedsKeyWithTheMembersAsTheSecondArgument() throws {
        subscribe(Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)))
        let event = try plan(
            Self.message(
                ["aaa"], type: "deleteMembers",
                extra: #", "extra": {"members": [{"_id": "d", "nickname": "DDD"}, {"_id": "e", "nickname": "EEE"}]}"#))
        #expect(body(event.devices[0]).contains(#""loc-key":"im_loc_deleteMember","loc-args":["SSS","DDD, EEE"]"#))
    }

    @Test func chatMessageEventsOnTheSameTopicAreUntouched() throws {
        let json =
            #"{"id": "m", "type": "text", "room": {"id": "r"}, "sender": {"id": "s"}, "content": "messageType", "recipients": [{"userId": "u", "devices": [{"platform": "fcm", "token": "t"}]}], "payload": {"messageType": "text"}}"#
        let event = try plan(json)
        #expect(event.outline == ["u fcm send fcm"])
        #expect(planner.deviceBound(Array(json.utf8)) == 6)
    }

    @Test func theDeviceBoundCountsResolvedDevicesAndSkips() {
        subscribe(
            Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)),
            Registry.subscription(client: "aaa", device: "D2", token: Registry.apnsToken(2)))
        #expect(planner.deviceBound(Array(Self.message(["aaa", "bbb"]).utf8)) == 3)
    }

    @Test func aPreparedMessageIsResolvedOnceForItsBoundAndItsPlan() throws {
        subscribe(
            Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)),
            Registry.subscription(client: "aaa", device: "D2", token: Registry.apnsToken(2)))
        let directory = CountingDirectory(inner: store)
        let planner = IMKITPlanner<ProviderSend>(
            events: CorePlanner(
                rules: .standard, context: ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "demo-project")),
            directory: directory)
        let prepared = planner.prepare(Array(Self.message(["aaa", "bbb"]).utf8))
        #expect(prepared.deviceBound == 3)
        // A subscription made while the record waits for its devices is not looked up again.
        subscribe(Registry.subscription(client: "bbb", device: "D3", token: Registry.apnsToken(3)))
        let event = try prepared.plan(nowMillis: Self.nowMillis).get()
        #expect(event.outline == ["aaa apns send apns", "aaa apns send apns", "bbb none skipped no_devices"])
        #expect(directory.lookups == ["SampleApp/aaa", "SampleApp/bbb"])
        // Through the invalid-token wrapper too.
        let skipping = SkippingKnownInvalidTokens(inner: planner, table: InvalidTokenTable())
        let again = skipping.prepare(Array(Self.message(["aaa"]).utf8))
        #expect(again.deviceBound == 2)
        #expect(try again.plan(nowMillis: Self.nowMillis).get().devices.count == 2)
        #expect(directory.lookups.count == 3)
    }

    /// A directory that records the clients it is asked for.
    final class CountingDirectory: DeviceDirectory, @unchecked Sendable {
        let inner: any DeviceDirectory
        private let lock = NSLock()
        private var asked: [String] = []

        init(inner: any DeviceDirectory) { self.inner = inner }

        var lookups: [String] { lock.withLock { asked } }

        func subscriptions(of client: ClientKey) -> [Subscription] {
            lock.withLock { asked.append(client.description) }
            return inner.subscriptions(of: client)
        }

        func settings(of client: ClientKey) -> ClientSettings? { inner.settings(of: client) }
    }

    @Test func aBadIMKITMessageIsUndecodableWithItsField() {
        let result = planner.plan(
            Array(#"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}}"#.utf8),
            nowMillis: Self.nowMillis)
        guard case .failure(let error) = result else {
            Issue.record("planned")
            return
        }
        #expect(error.reason == .decodeError)
        #expect(error.message.hasPrefix("pushToClients"))
    }

    @Test func theNarrowedRecordIsAChatMessageEventToTheResolvedDevices() throws {
        subscribe(
            Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)),
            Registry.subscription(client: "aaa", type: .fcm, device: "P1", token: Registry.fcmToken(2)))
        let event = try plan(Self.message(["aaa", "ccc"]))
        let narrowed = try EventDecoder().decode(
            event.narrowed([1, 2]), now: Date(timeIntervalSince1970: 1_795_953_660))
        #expect(narrowed.recipients.map(\.userID) == ["aaa"])
        #expect(narrowed.recipients[0].devices == [Device(platform: .apns, token: Registry.apnsToken(1))])
        #expect(narrowed.payload?["_id"] == .string("m-1"))
    }
}
