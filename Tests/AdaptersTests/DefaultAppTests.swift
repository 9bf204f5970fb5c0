import HTTP2
import HTTPTypes
import Observability
import Providers
import PushCore
import TestSupport
import Testing

@testable import Adapters
@testable import Configuration
@testable import PushPipeline

/// The default app is the apps table's entry for the empty `appID`, made from the `APNS_*`, `FCM_*` and `WEBPUSH_*`
/// variables: without `PUSH_APPS_DIR` every send goes with it, with it only sends without an `appID` do.
@Suite struct DefaultAppTests {
    static let environment = [
        "APNS_KEY_FILE": "/secrets/AuthKey.p8", "APNS_KEY_ID": "DEFAULT123", "APNS_TEAM_ID": "TEAM123456",
        "APNS_TOPIC": "com.example.default", "APNS_URL": "https://default.example",
        "WEBPUSH_VAPID_KEY_FILE": "/secrets/vapid.pem", "WEBPUSH_VAPID_SUBJECT": "mailto:ops@example.com",
    ]

    /// The default app of `environment`, its key files in `files`.
    static func defaultApp(_ environment: [String: String] = environment, files: MemoryFolders) throws
        -> AppCredentials
    {
        let key = try TestKeys.p256.get()
        files.write("/secrets/AuthKey.p8", key)
        files.write("/secrets/vapid.pem", key)
        let configuration = try WorkerConfiguration.load(environment: environment)
        return AppCredentials(
            defaultAppOf: configuration, credentials: try ProviderCredentials.load(for: configuration, files: files))
    }

    /// The key id in the provider token of `request`.
    static func keyID(of request: HTTPRequest?) -> String? {
        guard let authorization = request?.headers.first(where: { $0.hasName("authorization") })?.value,
            let header = authorization.split(separator: " ").last?.split(separator: ".").first,
            let text = JWTSegment.text(String(header))
        else { return nil }
        return ["DEFAULT123", "KEY1234567"].first { text.contains(#""kid":"\#($0)""#) }
    }

    @Test func theVariablesGiveTheDefaultAppsProvidersURLsAndContext() throws {
        let app = try Self.defaultApp(files: MemoryFolders())
        #expect(app.context == ProviderContext(apnsTopic: "com.example.default", fcmProjectID: "", sendsWebPush: true))
        #expect(app.apns?.url == "https://default.example")
        #expect(app.apns?.sandboxURL == AppURLs().apnsSandbox)
        guard case .token(let key)? = app.apns?.authentication.revealed else {
            Issue.record("the default app's APNs is not token auth")
            return
        }
        #expect(key.keyId == "DEFAULT123")
        #expect(app.fcm == nil)
        #expect(app.webPush?.revealed.subject == "mailto:ops@example.com")
    }

    @Test func aClientCertificateMakesTheDefaultAppsAPNsGoOverTheCertificatesTransport() async throws {
        let configuration = try WorkerConfiguration.load(environment: [
            "APNS_CERT_FILE": "/secrets/cert.pem", "APNS_CERT_KEY_FILE": "/secrets/key.pem",
            "APNS_TOPIC": "com.example.default",
        ])
        var credentials = ProviderCredentials()
        credentials.apnsClientCertificate = Secret(
            ClientCertificate(certificateFile: "/secrets/cert.pem", keyFile: "/secrets/key.pem", keyPassword: nil))
        let app = AppCredentials(defaultAppOf: configuration, credentials: credentials)
        let shared = ScriptedTransport { _ in HTTPResponse(status: 200) }
        let certified = ScriptedTransport { _ in HTTPResponse(status: 200) }
        let sender = ProviderSender(
            apps: AppSenders(
                defaultApp: app, folders: nil,
                factory: ProviderSenderTests.factory(shared, certificateTransport: certified)))
        #expect(sender.configuredProviders == [.apns])
        #expect(await sender.send(AppSenderTests.send(app: ""), to: .apns) == .delivered(providerMessageId: nil))
        #expect(shared.requests.isEmpty)
        #expect(certified.requests.count == 1)
        #expect(certified.requests.first?.headers.contains { $0.hasName("authorization") } == false)
        #expect(certified.requests.first?.url.hasPrefix("https://api.push.apple.com/3/device/") == true)
    }

    @Test func withoutAppFoldersEveryAppIDGoesWithTheDefaultApp() async throws {
        let transport = ScriptedTransport { _ in HTTPResponse(status: 200) }
        let sender = ProviderSender(
            apps: AppSenders(
                defaultApp: try Self.defaultApp(files: MemoryFolders()), folders: nil,
                factory: ProviderSenderTests.factory(transport)))
        #expect(sender.configuredProviders == [.apns, .webpush])
        for app in ["", "gamma"] {
            #expect(
                await sender.send(AppSenderTests.send(app: app), to: .apns) == .delivered(providerMessageId: nil))
        }
        #expect(
            await sender.send(AppSenderTests.send(app: "gamma"), to: .fcm)
                == .rejected(status: nil, reason: "FCM is not configured"))
        #expect(transport.requests.count == 2)
        #expect(transport.requests.allSatisfy { $0.url.hasPrefix("https://default.example/3/device/") })
        #expect(transport.requests.allSatisfy { Self.keyID(of: $0) == "DEFAULT123" })
    }

    @Test func withAppFoldersOnlyTheEmptyAppIDGoesWithTheDefaultAppAndAnUnknownOneIsRefused() async throws {
        let files = try AppFolderTests.folder("alpha", settings: AppSenderTests.settings)
        let registry = MetricsRegistry()
        let catalog = AppFolderTests.catalog(files, registry: registry)
        catalog.refresh()
        let transport = ScriptedTransport { _ in HTTPResponse(status: 200) }
        let sender = ProviderSender(
            apps: AppSenders(
                defaultApp: try Self.defaultApp(files: files), folders: catalog,
                factory: ProviderSenderTests.factory(transport), clock: ManualClock()))
        #expect(sender.configuredProviders == PushProvider.allCases)

        #expect(await sender.send(AppSenderTests.send(app: ""), to: .apns) == .delivered(providerMessageId: nil))
        #expect(
            await sender.send(AppSenderTests.send(app: "alpha"), to: .apns) == .delivered(providerMessageId: nil))
        #expect(
            await sender.send(AppSenderTests.send(app: "gamma"), to: .apns)
                == .rejected(status: nil, reason: "unknown_app"))

        let requests = transport.requests
        #expect(
            requests.map { $0.url.split(separator: "/").dropFirst().first } == ["default.example", "alpha.example"])
        #expect(requests.map { Self.keyID(of: $0) } == ["DEFAULT123", "KEY1234567"])
        let text = registry.prometheusText()
        #expect(text.contains(#"push_app_sends_total{app="(default)",provider="apns",status="delivered"} 1"#))
        #expect(text.contains(#"push_app_sends_total{app="alpha",provider="apns",status="delivered"} 1"#))
        #expect(text.contains(#"push_app_sends_total{app="gamma",provider="apns",status="unknown_app"} 1"#))
    }
}

/// A service account's `token_uri` is checked alike for the default app and for an app folder.
@Suite struct ServiceAccountTokenURITests {
    @Test(arguments: [
        (
            "http://oauth.example/token",
            "token_uri 'http://oauth.example/token' is not https:// "
                + "(set PUSH_ALLOW_INSECURE_HTTP=true to allow http:// in development)"
        ),
        ("https://user@oauth.example/token", "token_uri must not hold spaces, user info, a query or a fragment"),
        ("https://oauth.example:0/token", "token_uri holds the port '0', not one from 1 to 65535"),
    ])
    func aBadTokenURIIsRefusedNamingTheFile(tokenURI: String, reason: String) throws {
        let account = try TestKeys.serviceAccountJSON(tokenURI: tokenURI, project: "demo-project")
        let files = MemoryFolders()
        files.write("/secrets/fcm.json", account)
        let configuration = try WorkerConfiguration.load(environment: ["FCM_SERVICE_ACCOUNT_FILE": "/secrets/fcm.json"])
        #expect(throws: InvalidSetting(variable: "FCM_SERVICE_ACCOUNT_FILE", reason: reason)) {
            try ProviderCredentials.load(for: configuration, files: files)
        }

        let folders = try AppFolderTests.folder("alpha", settings: "{}")
        folders.write("/apps/alpha/fcm-service-account.json", account)
        #expect(throws: FileReadError(path: "/apps/alpha/fcm-service-account.json", reason: reason)) {
            try AppFolderTests.parse(folders, app: "alpha")
        }
    }
}
