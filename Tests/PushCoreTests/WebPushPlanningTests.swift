import Essentials
import Foundation
import PushCore
import TestSupport
import Testing

@Suite struct WebPushPlanningTests {
    static let webContext = ProviderContext(
        apnsTopic: "com.example.chat", fcmProjectID: "example-project", sendsWebPush: true)

    /// An event of `type` to one recipient with one web device.
    static func event(type: String, content: String = "Hello", badge: Int = 3, payload: String = #"{"k":"v"}"#)
        -> [UInt8]
    {
        let token = JSONWriter.quoted(Fixture.webToken)
        return Array(
            #"{"id":"m-1","type":"\#(type)","room":{"id":"r-42"},"sender":{"id":"u-1","nickname":"Alice"},"content":\#(JSONWriter.quoted(content)),"createdAt":"2026-11-29T12:00:00Z","payload":\#(payload),"recipients":[{"userId":"u-2","badge":\#(badge),"devices":[{"platform":"web","token":\#(token)}]}]}"#
                .utf8)
    }

    private func outcome(_ bytes: [UInt8], context: ProviderContext = webContext, now: Date = Fixture.now) throws
        -> DeviceDecision.Outcome
    {
        let decisions = PushPlanner(rules: .standard, context: context)
            .plan(try EventDecoder().decode(bytes, now: now), now: now)
        return try #require(decisions.first).outcome
    }

    @Test func anAppWithoutVAPIDKeysSkipsWebDevicesForPlatform() throws {
        guard case .skipped(.platform) = try outcome(Self.event(type: "text"), context: Fixture.context) else {
            Issue.record("a web device of an app without Web Push was not skipped")
            return
        }
    }

    @Test func aMessageIsPostedToTheEndpointWithItsHeadersAndThePlaintextTheServiceWorkerReads() throws {
        let now = Date(timeIntervalSince1970: 1_795_953_600 + 100)  // 100 s after createdAt
        let request = try #require(try outcome(Self.event(type: "text"), now: now).request)
        #expect(request.platform == .web)
        #expect(request.method == "POST")
        #expect(request.path == "https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV")
        #expect(
            request.headers == [
                .init("ttl", "86300"), .init("urgency", "high"), .init("topic", "r-42"),
                .init("content-encoding", "aes128gcm"), .init("content-type", "application/octet-stream"),
            ])
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"body":"Alice: Hello","loc-key":"im_loc_text","loc-args":["Alice","Hello"],"tag":"r-42","badge":3,"data":{"k":"v"},"mid":"m-1","type":"text","room":"r-42"}"#
        )
    }

    @Test func theReportShowsThePlaintextAndHowItIsEncryptedAndSigned() throws {
        let event = try EventDecoder().decode(Self.event(type: "text"), now: Fixture.now)
        let decisions = PushPlanner(rules: .standard, context: Self.webContext).plan(event, now: Fixture.now)
        let report = try JSONParser.parse(
            Array(DecisionReport.json(event: event, decisions: decisions, now: Fixture.now).utf8))
        guard case .array(let devices)? = report["devices"], let request = devices.first?["request"] else {
            Issue.record("no request in the report")
            return
        }
        #expect(request["path"] == .string("https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV"))
        #expect(request["host"] == nil)
        #expect(request["body"]?["mid"] == .string("m-1"))
        let size = try #require(
            request["bodySize"].flatMap { if case .number(let text) = $0 { Int(text) } else { nil } })
        #expect(request["encryption"]?["contentEncoding"] == .string("aes128gcm (RFC 8291)"))
        #expect(request["encryption"]?["encryptedSize"] == .number(String(86 + size + 1 + 16)))
    }

    @Test func aSilentPushHasNormalUrgencyAndNoTexts() throws {
        let request = try #require(try outcome(Self.event(type: "unreadCount")).request)
        #expect(request.header("urgency") == "normal")
        let body = try JSONParser.parse(request.body)
        #expect(body["title"] == nil && body["body"] == nil && body["loc-key"] == nil)
        #expect(body["badge"] == .number("3"))
    }

    @Test func aLongContentIsCutToFitOneRecordAndStaysJSON() throws {
        let content = String(repeating: "가나다라마", count: 1000)
        let payload = #"{"blob":"\#(String(repeating: "x", count: 2000))"}"#
        let request = try #require(try outcome(Self.event(type: "text", content: content, payload: payload)).request)
        #expect(request.body.count <= PayloadLimit.web)
        #expect(request.body.count > PayloadLimit.web - 64)
        let body = try JSONParser.parse(request.body)
        #expect(body["data"] == nil)
        let text = try #require(body["body"]?.stringValue)
        #expect(text.hasPrefix("Alice: 가나다라마") && text.hasSuffix("…"))
        #expect(content.hasPrefix(text.dropFirst("Alice: ".count).dropLast()))
    }

    @Test(arguments: [
        ("r-42", "r-42"), ("abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz012345"),
        ("abcdefghijklmnopqrstuvwxyz0123456", "5E_2m_vwWZeS9BE8iN9oJI4jgvigNkuO"),
        ("room:42", "OFEqdMCW5fX4lJLP9SoG1Z_mKf-6110d"), ("", "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NM"),
    ])
    func theTopicIsTheCollapseKeyWhenURLSafeAndShortElseItsHash(collapseKey: String, topic: String) {
        let derived = WebPushRequestBuilder.topic(collapseKey)
        #expect(derived == topic)
        #expect(derived.utf8.count <= 32)
    }
}
