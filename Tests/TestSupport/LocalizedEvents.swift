import Essentials
import Foundation
public import PushCore

/// Events addressed to one recipient per language, each with an APNs and an FCM device.
public enum LocalizedEvents {
    /// The languages of the built-in table.
    public static let locales = ["ko", "ja", "zh-Hant", "en"]

    /// `bytes` (an event) with its recipients replaced by one per entry of `locales` (`nil`: no `locale` field).
    public static func addressed(to locales: [String?], _ bytes: [UInt8]) throws -> [UInt8] {
        guard case .object(let members) = try JSONParser.parse(bytes) else { return bytes }
        let recipients = JSONValue.array(
            locales.enumerated().map { index, locale in
                var fields = [
                    JSONMember("userId", .string("u-\(locale ?? "none")")),
                    JSONMember("badge", .number("\(index + 1)")),
                ]
                if let locale { fields.append(JSONMember("locale", .string(locale))) }
                fields.append(
                    JSONMember(
                        "devices",
                        .array([
                            .object([
                                JSONMember("platform", .string("apns")),
                                JSONMember("token", .string(Fixture.apnsToken)),
                            ]),
                            .object([
                                JSONMember("platform", .string("fcm")), JSONMember("token", .string(Fixture.fcmToken)),
                            ]),
                        ])))
                return JSONValue.object(fields)
            })
        return JSONWriter.encode(
            .object(members.map { $0.key == "recipients" ? JSONMember("recipients", recipients) : $0 }))
    }

    /// The fallback body of a request: APNs `aps.alert.body`, FCM `message.notification.body`, Web Push `body`.
    public static func fallbackBody(_ request: ProviderRequest) throws -> String? {
        let body = try JSONParser.parse(request.body)
        switch request.platform {
        case .apns, .apnsVoip: return body["aps"]?["alert"]?["body"]?.stringValue
        case .fcm: return body["message"]?["notification"]?["body"]?.stringValue
        case .web: return body["body"]?.stringValue
        }
    }
}
