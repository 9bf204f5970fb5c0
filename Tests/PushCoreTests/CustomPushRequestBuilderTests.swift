import Essentials
import Foundation
import PushCore
import TestSupport
import Testing

@Suite struct CustomPushRequestBuilderTests {
    static let apns = Device(platform: .apns, token: Fixture.apnsToken)
    static let fcm = Device(platform: .fcm, token: Fixture.fcmToken)
    static let nowSeconds = Int64(Fixture.now.timeIntervalSince1970)

    static func push(_ payload: String, id: String = "p-1") throws -> CustomPush {
        try CustomPushDecoder().decode(Array(#"{"id": "\#(id)", "clients": ["a"], "payload": \#(payload)}"#.utf8))
    }

    static func request(_ payload: String, device: Device) throws -> ProviderRequest {
        let outcome = CustomPushRequestBuilder(context: Fixture.context).outcome(
            for: try push(payload), device: device, now: Fixture.now)
        guard case .send(let request) = outcome else { throw Unexpected(outcome: "\(outcome)") }
        return request
    }

    struct Unexpected: Error { var outcome: String }

    static func body(_ request: ProviderRequest) throws -> JSONValue { try JSONParser.parse(request.body) }

    /// A JSON value as compact text; empty when absent.
    static func text(_ value: JSONValue?) -> String {
        value.map { String(decoding: JSONWriter.encode($0), as: UTF8.self) } ?? ""
    }

    static let full = #"""
        {"type": "promo", "expiry": \#(nowSeconds + 600), "alert": "Shipped", "badge": 2, "sound": "chime.aiff",
         "topic": "com.example.other", "title": "Order", "body": "Your order shipped", "icon": "ic_box",
         "collapseKey": "orders", "orderId": "o-1"}
        """#

    @Test func apnsTakesAlertBadgeSoundTopicAndExpiry() throws {
        let request = try Self.request(Self.full, device: Self.apns)
        #expect(request.path == "/3/device/\(Fixture.apnsToken)")
        #expect(request.header("apns-push-type") == "alert")
        #expect(request.header("apns-topic") == "com.example.other")
        #expect(request.header("apns-priority") == "10")
        #expect(request.header("apns-expiration") == String(Self.nowSeconds + 600))
        #expect(request.expiresAtEpochSeconds == Int(Self.nowSeconds + 600))
        let body = try Self.body(request)
        #expect(Self.text(body["aps"]?["alert"]) == #"{"title":"Order","body":"Shipped"}"#)
        #expect(body["aps"]?["badge"] == .number("2"))
        #expect(body["aps"]?["sound"]?.stringValue == "chime.aiff")
        #expect(body["mid"]?.stringValue == "p-1")
        #expect(body["type"]?.stringValue == "promo")
        #expect(body["payload"]?["orderId"]?.stringValue == "o-1")
    }

    @Test func fcmTakesTitleBodyIconCollapseKeyAndType() throws {
        let request = try Self.request(Self.full, device: Self.fcm)
        #expect(request.path == "/v1/projects/example-project/messages:send")
        let message = try #require(try Self.body(request)["message"])
        #expect(message["token"] == .string(Fixture.fcmToken))
        #expect(Self.text(message["notification"]) == #"{"title":"Order","body":"Your order shipped"}"#)
        #expect(message["android"]?["collapse_key"]?.stringValue == "orders")
        #expect(message["android"]?["ttl"]?.stringValue == "600s")
        #expect(message["android"]?["priority"]?.stringValue == "HIGH")
        #expect(message["android"]?["notification"]?["icon"]?.stringValue == "ic_box")
        #expect(message["android"]?["notification"]?["sound"]?.stringValue == "chime.aiff")
        #expect(message["android"]?["notification"]?["notification_count"] == .number("2"))
        #expect(message["data"]?["type"]?.stringValue == "promo")
        #expect(message["data"]?["mid"]?.stringValue == "p-1")
        let payload = try JSONParser.parse(Array((message["data"]?["payload"]?.stringValue ?? "").utf8))
        #expect(payload["orderId"]?.stringValue == "o-1")
        #expect(payload["title"]?.stringValue == "Order")
    }

    @Test func aStringAlertAloneIsTheAPNsAlertAsGivenAndTheFCMBody() throws {
        let apns = try Self.body(try Self.request(#"{"alert": "Hello"}"#, device: Self.apns))
        #expect(apns["aps"]?["alert"]?.stringValue == "Hello")
        let fcm = try Self.body(try Self.request(#"{"alert": "Hello"}"#, device: Self.fcm))
        #expect(Self.text(fcm["message"]?["notification"]) == #"{"body":"Hello"}"#)
    }

    @Test func aLocalizedAlertIsTheLocFormOnBothPlatforms() throws {
        let payload = #"{"alert": {"loc-key": "im_loc_promo", "loc-args": ["Alice", "50%"]}}"#
        let apns = try Self.body(try Self.request(payload, device: Self.apns))
        #expect(Self.text(apns["aps"]?["alert"]) == #"{"loc-key":"im_loc_promo","loc-args":["Alice","50%"]}"#)
        let message = try #require(try Self.body(try Self.request(payload, device: Self.fcm))["message"])
        #expect(message["notification"] == nil)
        #expect(message["android"]?["notification"]?["body_loc_key"]?.stringValue == "im_loc_promo")
        #expect(Self.text(message["android"]?["notification"]?["body_loc_args"]) == #"["Alice","50%"]"#)
        #expect(message["data"]?["loc-key"]?.stringValue == "im_loc_promo")
        #expect(message["data"]?["loc-args"]?.stringValue == #"["Alice","50%"]"#)
    }

    @Test func aTitleAloneIsANotificationWithoutAnAndroidNotification() throws {
        let message = try #require(try Self.body(try Self.request(#"{"title": "Hi"}"#, device: Self.fcm))["message"])
        #expect(Self.text(message["notification"]) == #"{"title":"Hi"}"#)
        #expect(message["android"]?["notification"] == nil)
        #expect(message["android"]?["priority"]?.stringValue == "HIGH")
    }

    @Test func aPushThatShowsNothingIsABackgroundPushAndADataMessage() throws {
        let apns = try Self.request(#"{"type": "sync"}"#, device: Self.apns)
        #expect(apns.header("apns-push-type") == "background")
        #expect(apns.header("apns-priority") == "5")
        #expect(Self.text(try Self.body(apns)["aps"]) == #"{"content-available":1}"#)
        let message = try #require(try Self.body(try Self.request(#"{"type": "sync"}"#, device: Self.fcm))["message"])
        #expect(message["notification"] == nil)
        #expect(message["android"]?["notification"] == nil)
        #expect(message["android"]?["priority"]?.stringValue == "NORMAL")
        #expect(message["data"]?["type"]?.stringValue == "sync")
    }

    @Test func withoutExpiryItLivesADayAndTheDevicesTopicWins() throws {
        let device = Device(platform: .apns, token: Fixture.apnsToken, topic: "com.example.device", sandbox: true)
        let request = try Self.request(#"{"alert": "Hi", "topic": "com.example.other"}"#, device: device)
        #expect(request.header("apns-topic") == "com.example.device")
        #expect(request.header("apns-expiration") == String(Self.nowSeconds + 86_400))
        #expect(request.sandbox)
        let fcm = try Self.body(try Self.request(#"{"alert": "Hi"}"#, device: Self.fcm))
        #expect(fcm["message"]?["android"]?["ttl"]?.stringValue == "86400s")
        let plain = try Self.request(#"{"alert": "Hi"}"#, device: Self.apns)
        #expect(plain.header("apns-topic") == Fixture.context.apnsTopic)
    }

    @Test func aFarExpiryIsCappedForFCMOnly() throws {
        let payload = #"{"alert": "Hi", "expiry": \#(Self.nowSeconds + 10_000_000)}"#
        #expect(
            try Self.request(payload, device: Self.apns).header("apns-expiration")
                == String(Self.nowSeconds + 10_000_000))
        #expect(
            try Self.body(try Self.request(payload, device: Self.fcm))["message"]?["android"]?["ttl"]?.stringValue
                == "2419200s")
    }

    @Test func aPastExpiryIsExpiredAndPushKitTokensAreSkipped() throws {
        let builder = CustomPushRequestBuilder(context: Fixture.context)
        let expired = try Self.push(#"{"alert": "Hi", "expiry": \#(Self.nowSeconds - 1)}"#)
        guard case .expired = builder.outcome(for: expired, device: Self.apns, now: Fixture.now) else {
            Issue.record("not expired")
            return
        }
        let voip = Device(platform: .apnsVoip, token: Fixture.voipToken)
        guard
            case .skipped(.platform) = builder.outcome(
                for: try Self.push(#"{"alert": "Hi"}"#), device: voip, now: Fixture.now)
        else {
            Issue.record("a PushKit token was not skipped")
            return
        }
    }

    @Test(arguments: [Platform.apns, .fcm])
    func anOversizedPushDropsThePayloadThenCutsTheTexts(platform: Platform) throws {
        let long = String(repeating: "漢字👩‍👩‍👧 ", count: 2000)
        let device = platform == .apns ? Self.apns : Self.fcm
        let withBlob = try Self.request(#"{"title": "T", "alert": "Short", "blob": "\#(long)"}"#, device: device)
        #expect(withBlob.body.count <= PayloadLimit.bytes(for: platform))
        #expect(!String(decoding: withBlob.body, as: UTF8.self).contains("blob"))
        #expect(String(decoding: withBlob.body, as: UTF8.self).contains("Short"))
        let cut = try Self.request(#"{"title": "\#(long)", "body": "\#(long)", "alert": "\#(long)"}"#, device: device)
        #expect(cut.body.count <= PayloadLimit.bytes(for: platform))
        #expect(cut.body.count > PayloadLimit.bytes(for: platform) - 200)
        // Cut on whole grapheme clusters, with the same limit for every text.
        let title: String?
        if platform == .apns {
            title = try Self.body(cut)["aps"]?["alert"]?["title"]?.stringValue
        } else {
            title = try Self.body(cut)["message"]?["notification"]?["title"]?.stringValue
        }
        let kept = try #require(title)
        let cutsOnAGraphemeWithAnEllipsis = kept.hasSuffix("…") && long.hasPrefix(String(kept.dropLast()))
        #expect(kept.count > 1)
        #expect(cutsOnAGraphemeWithAnEllipsis)
    }

    @Test func aPushThatCannotFitIsDeadLettered() throws {
        let keys = (0..<1500).map { #""key-\#($0)-\#(String(repeating: "k", count: 10))""# }.joined(separator: ", ")
        let push = try Self.push(
            #"{"alert": {"loc-key": "\#(String(repeating: "k", count: 256))", "loc-args": [\#(keys)]}}"#)
        let outcome = CustomPushRequestBuilder(context: Fixture.context).outcome(
            for: push, device: Self.apns, now: Fixture.now)
        guard case .deadLetter(let error) = outcome else {
            Issue.record("sent: \(outcome)")
            return
        }
        #expect(error.reason == .payloadTooLarge)
    }

    @Test(arguments: [Platform.apns, .fcm])
    func tooLargeSaysSoExactlyWhenNoDeviceCanGetThePush(platform: Platform) throws {
        let builder = CustomPushRequestBuilder(context: Fixture.context)
        let shortest = Device(platform: platform, token: platform == .apns ? Fixture.apnsToken : "x")
        // From 100 to 2,000 loc-args: somewhere the smallest request crosses the limit.
        var crossed = false
        for count in stride(from: 100, through: 2_000, by: 50) {
            let arguments = Array(repeating: #""argument""#, count: count).joined(separator: ",")
            let push = try Self.push(#"{"alert": {"loc-key": "k", "loc-args": [\#(arguments)]}, "sound": "s"}"#)
            let tooLarge = CustomPushRequestBuilder.tooLarge(push, on: platform)
            let outcome = builder.outcome(for: push, device: shortest, now: Fixture.now)
            if case .deadLetter(let error) = outcome {
                #expect(error.reason == .payloadTooLarge)
                #expect(tooLarge?.path == "payload.alert.loc-args")
                crossed = true
            } else {
                #expect(tooLarge == nil, "\(count) loc-args")
            }
        }
        #expect(crossed)
    }

    @Test func hasExpiredMeansAnExpiryBeforeNow() throws {
        #expect(
            CustomPushRequestBuilder.hasExpired(try Self.push(#"{"expiry": \#(Self.nowSeconds - 1)}"#), at: Fixture.now)
        )
        #expect(
            !CustomPushRequestBuilder.hasExpired(try Self.push(#"{"expiry": \#(Self.nowSeconds)}"#), at: Fixture.now))
        #expect(!CustomPushRequestBuilder.hasExpired(try Self.push("{}"), at: Fixture.now))
    }
}
