import Foundation
import Observability
import Providers
import TestSupport
import Testing

@testable import Configuration

/// Web Push's settings: the VAPID key file and subject come together, each error names its variable, and the
/// private-endpoint switch is read for every app.
@Suite struct WebPushConfigurationTests {
    static func load(_ variables: [String: String]) throws(InvalidSetting) -> WorkerConfiguration {
        try WorkerConfiguration.load(environment: ConfigurationTests.apnsOnly.merging(variables) { $1 })
    }

    @Test func withoutAKeyWebPushIsOffAndPrivateEndpointsAreRefused() throws {
        let configuration = try Self.load([:])
        #expect(configuration.webPush == nil)
        #expect(!configuration.allowsPrivateWebPushEndpoints)
    }

    @Test func theKeyFileAndSubjectComeTogether() throws {
        let both = try Self.load([
            "WEBPUSH_VAPID_KEY_FILE": "/secrets/vapid.pem", "WEBPUSH_VAPID_SUBJECT": "mailto:ops@example.com",
            "WEBPUSH_ALLOW_PRIVATE_ENDPOINTS": "true",
        ])
        #expect(both.webPush == .init(keyFile: "/secrets/vapid.pem", subject: "mailto:ops@example.com"))
        #expect(both.allowsPrivateWebPushEndpoints)
        #expect(both.description.contains("webpush: vapidKey=/secrets/vapid.pem subject=mailto:ops@example.com"))
        do {
            _ = try Self.load(["WEBPUSH_VAPID_SUBJECT": "mailto:ops@example.com"])
            Issue.record("a subject without a key was accepted")
        } catch {
            #expect(error.variable == "WEBPUSH_VAPID_KEY_FILE")
        }
        do {
            _ = try Self.load(["WEBPUSH_VAPID_KEY_FILE": "/secrets/vapid.pem"])
            Issue.record("a key without a subject was accepted")
        } catch {
            #expect(error.variable == "WEBPUSH_VAPID_SUBJECT")
        }
    }

    @Test func aBadKeyOrSubjectNamesItsVariableWhenTheCredentialsAreRead() throws {
        try ProviderCredentialsTests.withFile(try TestKeys.p256.get()) { key in
            var configuration = try Self.load([
                "WEBPUSH_VAPID_KEY_FILE": key, "WEBPUSH_VAPID_SUBJECT": "ops@example.com",
            ])
            configuration.apns = nil
            #expect(ProviderCredentialsTests.error(configuration)?.variable == "WEBPUSH_VAPID_SUBJECT")
            configuration.webPush?.subject = "mailto:ops@example.com"
            let credentials = try ProviderCredentials.load(for: configuration, files: SystemFileReading())
            #expect(credentials.vapidKey?.revealed.subject == "mailto:ops@example.com")
            #expect(!"\(credentials.vapidKey as Any)".contains("PRIVATE"))
        }
        try ProviderCredentialsTests.withFile(ProviderCredentialsTests.keyPEM) { key in
            var configuration = try Self.load([
                "WEBPUSH_VAPID_KEY_FILE": key, "WEBPUSH_VAPID_SUBJECT": "mailto:ops@example.com",
            ])
            configuration.apns = nil
            #expect(ProviderCredentialsTests.error(configuration)?.variable == "WEBPUSH_VAPID_KEY_FILE")
        }
    }
}
