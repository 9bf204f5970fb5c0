import PushCore
import Testing

@testable import Configuration

@Suite struct RenderConfigurationTests {
    @Test func readsTheVariablesTheOfflineCommandsFallBackOn() throws {
        let settings = try RenderConfiguration.load(environment: [
            "PUSH_RULES_FILE": "/etc/push/rules.json", "APNS_TOPIC": "com.example.chat",
            "FCM_SERVICE_ACCOUNT_FILE": "/etc/push/fcm.json", "PUSH_DEFAULT_LOCALE": "ja-jp",
        ])
        #expect(settings.rulesFile == "/etc/push/rules.json")
        #expect(settings.apnsTopic == "com.example.chat")
        #expect(settings.serviceAccountFile == "/etc/push/fcm.json")
        #expect(settings.defaultLocale == LanguageTag("ja-JP"))
    }

    @Test func emptyVariablesAreUnset() throws {
        let settings = try RenderConfiguration.load(environment: [
            "PUSH_RULES_FILE": "", "APNS_TOPIC": "", "FCM_SERVICE_ACCOUNT_FILE": "", "PUSH_DEFAULT_LOCALE": "",
        ])
        #expect(settings == RenderConfiguration(rulesFile: nil, apnsTopic: nil, serviceAccountFile: nil))
    }

    @Test func aBadLocaleNamesItsVariable() {
        let error = #expect(throws: InvalidSetting.self) {
            try RenderConfiguration.load(environment: ["PUSH_DEFAULT_LOCALE": "not a tag"])
        }
        #expect(error?.variable == "PUSH_DEFAULT_LOCALE")
    }
}
