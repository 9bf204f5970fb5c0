import Essentials
import Foundation
import PushCore
import TestSupport
import Testing

@Suite struct RegistryRecordDecoderTests {
    static let apnsToken = String(repeating: "ab", count: 32)

    private func subscription(_ key: String, _ value: String?) throws(RegistryRecordError) -> RegistryChange<
        DeviceKey, Subscription
    > {
        try RegistryRecordDecoder.subscription(key: Array(key.utf8), value: value.map { Array($0.utf8) })
    }

    @Test func aSubscriptionRecordBecomesAPut() throws {
        let change = try subscription(
            "SampleApp/aaa/ios/D1",
            #"{"appID": "SampleApp", "clientId": "aaa", "type": "ios", "token": "\#(Self.apnsToken)", "deviceId": "D1", "sandbox": true, "topic": "com.example.chat", "locale": "ko-KR", "updatedAtMS": 1764590400000}"#
        )
        let expected = Subscription(
            appID: "SampleApp", clientID: "aaa", type: .ios, token: Self.apnsToken, deviceID: "D1", sandbox: true,
            topic: "com.example.chat", locale: LanguageTag("ko-KR"), updatedAtMS: 1_764_590_400_000)
        #expect(change == .put(expected.key, expected))
        #expect(
            expected.device == Device(platform: .apns, token: Self.apnsToken, topic: "com.example.chat", sandbox: true))
    }

    @Test func aTombstoneIsAnUnsubscribe() throws {
        #expect(
            try subscription("/aaa/fcm/D2", nil)
                == .delete(DeviceKey(appID: "", clientID: "aaa", type: .fcm, deviceID: "D2")))
    }

    @Test(arguments: [
        (SubscriptionType.ios, Platform.apns), (.iosVoip, .apnsVoip), (.android, .fcm), (.fcm, .fcm),
    ])
    func eachTypeGoesToItsProvider(type: SubscriptionType, platform: Platform) {
        #expect(type.platform == platform)
    }

    @Test func webDevicesHoldAPushSubscription() throws {
        let token = String(decoding: JSONWriter.encode(.string(Fixture.webToken)), as: UTF8.self)
        let change = try subscription(
            "A/c/web/b1", #"{"appID": "A", "clientId": "c", "type": "web", "token": \#(token), "deviceId": "b1"}"#)
        guard case .put(_, let value) = change else { Issue.record("not a put"); return }
        #expect(value.device == Device(platform: .web, token: Fixture.webToken))
    }

    @Test func aWebDeviceWhoseTokenIsNoPushSubscriptionIsIgnoredAsABadToken() {
        do {
            _ = try subscription(
                "A/c/web/b1",
                #"{"appID": "A", "clientId": "c", "type": "web", "token": "https://push.example/e", "deviceId": "b1"}"#)
            Issue.record("a URL alone was accepted as a web token")
        } catch {
            #expect(error.reason == .badToken)
            #expect(!error.message.contains("push.example"))
        }
    }

    @Test(arguments: [
        ("A/c/ios/D1", #"{"appID": "B", "clientId": "c", "type": "ios", "token": "TOKEN", "deviceId": "D1"}"#),
        ("A/c/ios/D1", #"{"appID": "A", "clientId": "x", "type": "ios", "token": "TOKEN", "deviceId": "D1"}"#),
        ("A/c/ios/D1", #"{"appID": "A", "clientId": "c", "type": "fcm", "token": "TOKEN", "deviceId": "D1"}"#),
        ("A/c/ios/D1", #"{"appID": "A", "clientId": "c", "type": "ios", "token": "TOKEN", "deviceId": "D2"}"#),
        ("/c/ios/D1", #"{"appID": "A", "clientId": "c", "type": "ios", "token": "TOKEN", "deviceId": "D1"}"#),
    ])
    func aValueThatDisagreesWithItsKeyIsRejected(key: String, value: String) {
        do {
            _ = try subscription(key, value.replacingOccurrences(of: "TOKEN", with: Self.apnsToken))
            Issue.record("accepted")
        } catch {
            #expect(error.reason == .keyMismatch)
        }
    }

    @Test(arguments: [
        (
            #"{"appID": "A", "clientId": "c", "type": "ios", "token": "zz", "deviceId": "D1"}"#,
            RegistryRecordError.Reason.badToken
        ),
        (#"{"appID": "A", "clientId": "c", "type": "ios", "deviceId": "D1"}"#, .badValue),
        (#"{"appID": "A", "clientId": "c", "type": "pager", "token": "t", "deviceId": "D1"}"#, .badValue),
        (#"not json"#, .badValue),
        (#"[1]"#, .badValue),
        (
            #"{"appID": "A", "clientId": "c", "type": "ios", "token": "TOKEN", "deviceId": "D1", "updatedAtMS": -1}"#,
            .badValue
        ),
        (
            #"{"appID": "A", "clientId": "c", "type": "ios", "token": "TOKEN", "deviceId": "D1", "updatedAtMS": 1e400}"#,
            .badValue
        ),
    ])
    func badValuesAreRejectedWithTheirReason(value: String, reason: RegistryRecordError.Reason) {
        do {
            _ = try subscription("A/c/ios/D1", value.replacingOccurrences(of: "TOKEN", with: Self.apnsToken))
            Issue.record("accepted")
        } catch {
            #expect(error.reason == reason)
            #expect(!error.message.contains(Self.apnsToken))
        }
    }

    @Test func aKeyThatIsNotADeviceKeyIsRejected() {
        #expect(throws: RegistryRecordError(.badKey, "the key must be appID/clientId/type/deviceId, percent-encoded")) {
            _ = try RegistryRecordDecoder.subscription(key: nil, value: nil)
        }
        #expect(throws: RegistryRecordError.self) {
            _ = try RegistryRecordDecoder.subscription(key: [0xFF, 0x2F, 0x2F, 0x2F], value: nil)
        }
    }

    @Test func clientSettingsDecodeWithDefaults() throws {
        let full = try RegistryRecordDecoder.settings(
            key: Array("SampleApp/aaa".utf8),
            value: Array(
                #"{"appID": "SampleApp", "clientId": "aaa", "mute": ["r1", "r2", "r1"], "notificationEnabled": false, "locale": "ja", "badge": 3}"#
                    .utf8))
        let expected = ClientSettings(
            appID: "SampleApp", clientID: "aaa", mutedRooms: ["r1", "r2"], notificationEnabled: false,
            locale: LanguageTag("ja"), badge: 3)
        #expect(full == .put(expected.key, expected))
        let bare = try RegistryRecordDecoder.settings(
            key: Array("/bbb".utf8), value: Array(#"{"clientId": "bbb"}"#.utf8))
        #expect(bare == .put(ClientKey(appID: "", clientID: "bbb"), ClientSettings(appID: "", clientID: "bbb")))
        #expect(
            try RegistryRecordDecoder.settings(key: Array("/bbb".utf8), value: nil)
                == .delete(ClientKey(appID: "", clientID: "bbb")))
    }

    @Test(arguments: [
        ("A/c", #"{"appID": "B", "clientId": "c"}"#, RegistryRecordError.Reason.keyMismatch),
        ("A/c/x", #"{"appID": "A", "clientId": "c"}"#, .badKey),
        ("A/c", #"{"appID": "A", "clientId": "c", "mute": [1]}"#, .badValue),
        ("A/c", #"{"appID": "A", "clientId": "c", "mute": "r1"}"#, .badValue),
        ("A/c", #"{"appID": "A", "clientId": "c", "badge": 99999999999999999999}"#, .badValue),
    ])
    func badSettingsAreRejectedWithTheirReason(key: String, value: String, reason: RegistryRecordError.Reason) {
        do {
            _ = try RegistryRecordDecoder.settings(key: Array(key.utf8), value: Array(value.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func everySubscriptionExampleDecodesUnderItsOwnKey() throws {
        for file in try Repository.jsonFiles(in: Repository.examples.appending(path: "subscription")) {
            let bytes = try Repository.read(file)
            let value = try JSONParser.parse(bytes)
            let type = try #require(value["type"]?.stringValue.flatMap(SubscriptionType.init(rawValue:)))
            let key = DeviceKey(
                appID: value["appID"]?.stringValue ?? "", clientID: value["clientId"]?.stringValue ?? "", type: type,
                deviceID: value["deviceId"]?.stringValue ?? "")
            #expect(throws: Never.self) {
                _ = try RegistryRecordDecoder.subscription(key: Array(key.description.utf8), value: bytes)
            }
        }
        for file in try Repository.jsonFiles(in: Repository.examples.appending(path: "client-settings")) {
            let bytes = try Repository.read(file)
            let value = try JSONParser.parse(bytes)
            let key = ClientKey(
                appID: value["appID"]?.stringValue ?? "", clientID: value["clientId"]?.stringValue ?? "")
            #expect(throws: Never.self) {
                _ = try RegistryRecordDecoder.settings(key: Array(key.description.utf8), value: bytes)
            }
        }
    }

    @Test func aLocaleMemoGivesWhatParsingGivesForEveryText() {
        var memo = LocaleMemo()
        let texts =
            ["ko-KR", "ko_kr", "zh-hant-tw", "x", "", "en-US-u-ca-gregory", "12-34"]
            + (0..<LocaleMemo.capacity).map { "en-\($0)" }
        for text in texts + texts {
            #expect(memo.tag(text) == LanguageTag(lenient: text), "\(text)")
        }
    }
}
