import DeviceRegistry
import PushCore
import TestSupport

/// Tokens and records of the registry tests.
enum Registry {
    static func apnsToken(_ seed: Int) -> String {
        String(repeating: String(format2(seed)), count: 32)
    }

    static func fcmToken(_ seed: Int) -> String { "fcm-token-\(seed)" }

    private static func format2(_ seed: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[(seed / 16) % 16], digits[seed % 16]])
    }

    /// The clients every resolution test starts from: aaa with an iPhone and an Android phone, bbb and ddd with an
    /// iPhone each, eee with a browser only, and ccc with an iPhone in another app.
    static let sampleClients = [
        subscription(client: "aaa", device: "D1", token: apnsToken(1)),
        subscription(client: "aaa", type: .fcm, device: "P1", token: fcmToken(2)),
        subscription(client: "bbb", device: "D2", token: apnsToken(3)),
        subscription(client: "ddd", device: "D4", token: apnsToken(4)),
        subscription(client: "eee", type: .web, device: "B5", token: Fixture.webToken),
        subscription(app: "OtherApp", client: "ccc", device: "D7", token: apnsToken(7)),
    ]

    static func subscription(
        app: String = "SampleApp", client: String, type: SubscriptionType = .ios, device: String, token: String,
        locale: String? = nil
    ) -> Subscription {
        Subscription(
            appID: app, clientID: client, type: type, token: token, deviceID: device,
            locale: locale.flatMap { LanguageTag(lenient: $0) })
    }

    /// The record value of `subscription`, as `push-worker devices subscribe` writes it.
    static func value(_ subscription: Subscription) -> [UInt8] {
        var json =
            #"{"appID": "\#(subscription.appID)", "clientId": "\#(subscription.clientID)", "type": "\#(subscription.type.rawValue)", "token": "\#(subscription.token)", "deviceId": "\#(subscription.deviceID)""#
        if let locale = subscription.locale { json += #", "locale": "\#(locale)""# }
        return Array((json + "}").utf8)
    }

    static func key(_ subscription: Subscription) -> [UInt8] { Array(subscription.key.description.utf8) }
}
