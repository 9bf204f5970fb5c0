import Essentials
public import Foundation
public import PushCore

/// Shared fixtures for the PushCore tests: tokens, a provider context, the seeds' types and an event of each.
public enum Fixture {
    public static let apnsToken = String(repeating: "0123456789abcdef", count: 4)
    public static let voipToken = String(repeating: "fedcba9876543210", count: 4)
    public static let fcmToken = "fcm-token:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx"
    /// A browser's push subscription: RFC 8291 Appendix A's receiver keys, at a push service of the example domain.
    public static let webToken = webToken(endpoint: "https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV")

    /// A push subscription with RFC 8291 Appendix A's receiver keys at `endpoint`.
    public static func webToken(endpoint: String) -> String {
        #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#
    }
    public static let context = ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "example-project")
    public static let now = Date(timeIntervalSince1970: 1_795_953_660)
    public static let seedTypes = [
        "text", "image", "video", "audio", "sticker", "location", "file", "joinRoom", "leaveRoom", "addMember",
        "addMembers", "deleteMember", "encrypted",
    ]

    /// An event of `type` to one recipient with an APNs, a VoIP and an FCM device.
    public static func event(
        type: String, content: String? = "Hello", nickname: String? = "Alice", muted: Bool = false,
        payload: String = #"{"id": "m-1", "text": "Hello"}"#
    ) -> [UInt8] {
        var object: [String] = [
            #""id": "m-1""#, #""type": \#(quoted(type))"#, #""room": {"id": "r-42", "name": "Team"}"#,
            #""sender": {"id": "u-1"\#(nickname.map { ", \"nickname\": \(quoted($0))" } ?? "")}"#,
            #""target": {"id": "u-9", "nickname": "Bob"}"#, #""createdAt": "2026-11-29T12:00:00Z""#,
            #""payload": \#(payload)"#,
            #""recipients": [{"userId": "u-2", "badge": 3, "muted": \#(muted), "devices": [{"platform": "apns", "token": "\#(apnsToken)"}, {"platform": "apns-voip", "token": "\#(voipToken)"}, {"platform": "fcm", "token": "\#(fcmToken)"}]}]"#,
        ]
        if let content { object.append(#""content": \#(quoted(content))"#) }
        return Array("{\(object.joined(separator: ", "))}".utf8)
    }

    public static func quoted(_ text: String) -> String {
        JSONWriter.quoted(text)
    }

    public static func decisions(
        _ bytes: [UInt8], rules: RulesTable = .standard, now: Date = Fixture.now
    ) throws -> [DeviceDecision] {
        PushPlanner(rules: rules, context: context).plan(try EventDecoder().decode(bytes, now: now), now: now)
    }
}

extension DeviceDecision.Outcome {
    public var request: ProviderRequest? {
        if case .send(let request) = self { return request }
        return nil
    }

    public var bodyText: String? { request.map { String(decoding: $0.body, as: UTF8.self) } }
}
