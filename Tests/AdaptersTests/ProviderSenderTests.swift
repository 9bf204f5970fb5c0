import Essentials
import HTTPTypes
import Observability
import Providers
import PushCore
import Synchronization
import TestSupport
import Testing

@testable import Adapters
@testable import PushPipeline

@Suite struct ProviderSenderTests {
    static let send = ProviderSend(
        request: ProviderRequest(
            platform: .apns, path: "/3/device/x", headers: [], body: Array("{}".utf8), expiresAtEpochSeconds: 0),
        deviceToken: String(repeating: "ab", count: 32))

    /// The one place clients are made, over `transport`.
    static func factory(_ transport: any HTTPTransport, certificateTransport: (any HTTPTransport)? = nil)
        -> ProviderClientFactory
    {
        ProviderClientFactory(
            transport: transport, certificateTransport: certificateTransport, signers: APNsTokenSigners(),
            requestDeadline: .seconds(1), webPushPolicy: WebPushEndpointPolicy(), clock: ManualClock())
    }

    @Test(arguments: [
        (PushProvider.apns, "APNs is not configured"), (.fcm, "FCM is not configured"),
        (.webpush, "Web Push is not configured"),
    ])
    func aProviderWithoutAClientRejectsWithoutAStatus(provider: PushProvider, reason: String) async {
        let transport = ScriptedTransport { _ in HTTPResponse(status: 200) }
        let sender = ProviderSender(
            apps: AppSenders(defaultApp: AppCredentials(), folders: nil, factory: Self.factory(transport)))
        #expect(sender.configuredProviders.isEmpty)
        #expect(await sender.send(Self.send, to: provider) == .rejected(status: nil, reason: reason))
    }
}

extension ProviderSenderTests {
    @Test func aGroupForProvidersWithoutAClientIsRejectedAsSendRejectsEach() async {
        let transport = ScriptedTransport { _ in HTTPResponse(status: 200) }
        let sender = ProviderSender(
            apps: AppSenders(defaultApp: AppCredentials(), folders: nil, factory: Self.factory(transport)))
        let providers: [PushProvider] = [.apns, .fcm, .webpush, .fcm]
        let outcomes = await answersInOrder(of: providers.count) { answer in
            await sender.sendAll(providers.map { PushSend(Self.send, to: $0) }, answer: answer)
        }
        #expect(
            outcomes == [
                .rejected(status: nil, reason: "APNs is not configured"),
                .rejected(status: nil, reason: "FCM is not configured"),
                .rejected(status: nil, reason: "Web Push is not configured"),
                .rejected(status: nil, reason: "FCM is not configured"),
            ])
        #expect(transport.requests.isEmpty)
        #expect(await answersInOrder(of: 0) { answer in await sender.sendAll([], answer: answer) }.isEmpty)
    }
}

/// With `PUSH_APPS_DIR`, a send goes with its app's clients: its key signs, its hosts answer; a send of an app that
/// cannot send is rejected with the refusal's code.
@Suite struct AppSenderTests {
    static let settings = #"""
        {"apns": {"keyId": "KEY1234567", "teamId": "TEAM123456", "topic": "com.example.alpha",
                  "url": "https://alpha.example"}}
        """#

    static func send(app: String) -> ProviderSend {
        let send = ProviderSenderTests.send
        return ProviderSend(request: send.request, deviceToken: send.deviceToken, appID: app)
    }

    @Test func eachAppsSendIsSignedWithItsKeyAndGoesToItsHostTheDefaultAppsWithTheDefaultClient() async throws {
        let files = try AppFolderTests.folder("alpha", settings: Self.settings)
        try AppFolderTests.add("broken", to: files, settings: "{")
        let registry = MetricsRegistry()
        let catalog = AppFolderTests.catalog(files, registry: registry)
        catalog.refresh()
        let transport = ScriptedTransport { _ in HTTPResponse(status: 200, headers: [HTTPHeader("apns-id", "x")]) }
        let apps = AppSenders(
            defaultApp: AppCredentials(), folders: catalog, factory: ProviderSenderTests.factory(transport),
            clock: ManualClock())
        let sender = ProviderSender(apps: apps)
        #expect(sender.configuredProviders == PushProvider.allCases)

        #expect(await sender.send(Self.send(app: "alpha"), to: .apns) == .delivered(providerMessageId: "x"))
        #expect(await sender.send(Self.send(app: "alpha"), to: .apns) == .delivered(providerMessageId: "x"))
        #expect(apps.liveApps == 1)
        #expect(
            await sender.send(Self.send(app: "alpha"), to: .fcm)
                == .rejected(status: nil, reason: "FCM is not configured"))
        #expect(
            await sender.send(Self.send(app: "broken"), to: .apns)
                == .rejected(status: nil, reason: "app_misconfigured"))
        #expect(await sender.send(Self.send(app: "gamma"), to: .apns) == .rejected(status: nil, reason: "unknown_app"))
        #expect(
            await sender.send(Self.send(app: ""), to: .apns) == .rejected(status: nil, reason: "APNs is not configured")
        )

        let requests = transport.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.url.hasPrefix("https://alpha.example/3/device/") })
        let authorization = try #require(requests.first?.headers.first { $0.hasName("authorization") }?.value)
        let header = try #require(authorization.split(separator: " ").last?.split(separator: ".").first)
        #expect(JWTSegment.text(String(header))?.contains(#""kid":"KEY1234567""#) == true)
        let text = registry.prometheusText()
        #expect(text.contains(#"push_app_sends_total{app="alpha",provider="apns",status="delivered"} 2"#))
        #expect(text.contains(#"push_app_sends_total{app="broken",provider="apns",status="app_misconfigured"} 1"#))
        #expect(text.contains(#"push_app_sends_total{app="(default)",provider="apns",status="rejected"} 1"#))
    }

    @Test func anAppsWebPushIsSignedWithItsOwnVAPIDKey() async throws {
        let files = try AppFolderTests.folder("alpha", settings: Self.settings)
        let key = try TestKeys.p256.get()
        files.write("/apps/alpha/webpush-vapid.pem", key)
        files.write("/apps/alpha/webpush.json", #"{"subject": "https://alpha.example/contact"}"#)
        let catalog = AppFolderTests.catalog(files)
        catalog.refresh()
        let transport = ScriptedTransport { _ in HTTPResponse(status: 201) }
        let sender = ProviderSender(
            apps: AppSenders(
                defaultApp: AppCredentials(), folders: catalog, factory: ProviderSenderTests.factory(transport),
                clock: ManualClock()))
        let request = ProviderRequest(
            platform: .web, path: "https://push.example.net/x", headers: [], body: Array("{}".utf8),
            expiresAtEpochSeconds: 0)
        let web = ProviderSend(
            request: request, deviceToken: Fixture.webToken(endpoint: "https://push.example.net/x"), appID: "alpha")
        #expect(await sender.send(web, to: .webpush) == .delivered(providerMessageId: nil))
        let noApp = ProviderSend(request: request, deviceToken: web.deviceToken, appID: "")
        #expect(await sender.send(noApp, to: .webpush) == .rejected(status: nil, reason: "Web Push is not configured"))
        let authorization = try #require(transport.requests.first?.headers.first { $0.hasName("authorization") })
        let expected = try VAPIDKey(pem: key, subject: "https://alpha.example/contact").publicKey
        #expect(authorization.value.hasSuffix(", k=\(expected)"))
        #expect(transport.requests.count == 1)
    }

    /// One group of sends for two apps and both providers: one client `sendAll` per app and provider, each with
    /// the app's credentials and hosts, every outcome at its send's index and counted per app, a refused app's
    /// sends rejected with the refusal's code.
    @Test func aGroupSpanningTwoAppsAndBothProvidersGoesInOneTransportCallPerAppAndProvider() async throws {
        let files = try AppFolderTests.folder(
            "alpha",
            settings:
                #"{"apns": {"keyId": "KEY1234567", "teamId": "TEAM123456", "topic": "com.example.alpha", "url": "https://alpha.example"}, "fcm": {"url": "https://fcm-alpha.example"}}"#,
            project: "alpha-project")
        try AppFolderTests.add(
            "beta",
            to: files,
            settings:
                #"{"apns": {"keyId": "KEY7654321", "teamId": "TEAM123456", "topic": "com.example.beta", "url": "https://beta.example"}, "fcm": {"url": "https://fcm-beta.example"}}"#,
            project: "beta-project")
        let registry = MetricsRegistry()
        let catalog = AppFolderTests.catalog(files, registry: registry)
        catalog.refresh()
        let transport = ScriptedTransport { request in
            if request.url.hasSuffix("/token") {
                return HTTPResponse(
                    status: 200, body: Array(#"{"access_token":"access","expires_in":3600}"#.utf8))
            }
            if request.url.contains("/3/device/") {
                return HTTPResponse(status: 200, headers: [HTTPHeader("apns-id", "apns-\(request.url.prefix(13))")])
            }
            return HTTPResponse(status: 200, body: Array(#"{"name":"\#(request.url.prefix(21))"}"#.utf8))
        }
        let sender = ProviderSender(
            apps: AppSenders(
                defaultApp: AppCredentials(), folders: catalog, factory: ProviderSenderTests.factory(transport),
                clock: ManualClock()))
        // Each app's OAuth token fetched and cached first: then an FCM group goes in one call.
        #expect(await sender.send(Self.send(app: "alpha"), to: .fcm).className == "delivered")
        #expect(await sender.send(Self.send(app: "beta"), to: .fcm).className == "delivered")
        let before = transport.requests.count

        let sends: [PushSend<ProviderSend>] = [
            PushSend(Self.send(app: "alpha"), to: .apns), PushSend(Self.send(app: "beta"), to: .fcm),
            PushSend(Self.send(app: "beta"), to: .apns), PushSend(Self.send(app: "alpha"), to: .fcm),
            PushSend(Self.send(app: "alpha"), to: .apns), PushSend(Self.send(app: "gamma"), to: .apns),
            PushSend(Self.send(app: "beta"), to: .fcm),
        ]
        let answered = Mutex<[Int: DeliveryOutcome]>([:])
        await sender.sendAll(sends) { index, outcome in
            answered.withLock { #expect($0.updateValue(outcome, forKey: index) == nil, "answered twice") }
        }
        let outcomes = answered.withLock { $0 }
        #expect(outcomes.count == 7)
        #expect(outcomes[0] == .delivered(providerMessageId: "apns-https://alpha"))
        #expect(outcomes[1] == .delivered(providerMessageId: "https://fcm-beta.exam"))
        #expect(outcomes[2] == .delivered(providerMessageId: "apns-https://beta."))
        #expect(outcomes[3] == .delivered(providerMessageId: "https://fcm-alpha.exa"))
        #expect(outcomes[4] == .delivered(providerMessageId: "apns-https://alpha"))
        #expect(outcomes[5] == .rejected(status: nil, reason: "unknown_app"))
        #expect(outcomes[6] == .delivered(providerMessageId: "https://fcm-beta.exam"))

        let groups = transport.groups.map { Set($0.map { String($0.url.prefix(21)) }) }
        #expect(groups.count == 4)
        #expect(
            Set(groups) == [
                ["https://alpha.example"], ["https://beta.example/"], ["https://fcm-alpha.exa"],
                ["https://fcm-beta.exam"],
            ])
        #expect(transport.groups.map(\.count).sorted() == [1, 1, 2, 2])
        #expect(transport.requests.count == before + 6, "no send went alone")
        let text = registry.prometheusText()
        #expect(text.contains(#"push_app_sends_total{app="alpha",provider="apns",status="delivered"} 2"#))
        #expect(text.contains(#"push_app_sends_total{app="alpha",provider="fcm",status="delivered"} 2"#))
        #expect(text.contains(#"push_app_sends_total{app="beta",provider="apns",status="delivered"} 1"#))
        #expect(text.contains(#"push_app_sends_total{app="beta",provider="fcm",status="delivered"} 3"#))
        // The label limit of the test's catalog is two apps: the third shares `(other)`.
        #expect(text.contains(#"push_app_sends_total{app="(other)",provider="apns",status="unknown_app"} 1"#))
    }
}
