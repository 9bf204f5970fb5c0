import HTTPTypes
import Providers
import PushCore
import PushPipeline

/// The sender port over the APNs, FCM and Web Push clients: the default app's, or, for a message with an `appID`,
/// that app's of `PUSH_APPS_DIR`.
public struct ProviderSender: PushSender {
    private let apns: APNsClient?
    private let fcm: FCMClient?
    private let webPush: WebPushClient?
    private let apps: AppSenders?

    public init(apns: APNsClient?, fcm: FCMClient?, webPush: WebPushClient? = nil) {
        self.init(apns: apns, fcm: fcm, webPush: webPush, apps: nil)
    }

    /// With `apps`, a send with an `appID` goes with that app's clients; without, every send goes with the default
    /// app's.
    init(apns: APNsClient?, fcm: FCMClient?, webPush: WebPushClient?, apps: AppSenders?) {
        self.apns = apns
        self.fcm = fcm
        self.webPush = webPush
        self.apps = apps
    }

    /// The providers with a client, in `PushProvider` order: every provider when apps may bring their own.
    public var configuredProviders: [PushProvider] {
        PushProvider.allCases.filter { provider in
            switch provider {
            case .apns: apps != nil || apns != nil
            case .fcm: apps != nil || fcm != nil
            case .webpush: apps != nil || webPush != nil
            }
        }
    }

    public func send(_ send: ProviderSend, to provider: PushProvider) async -> DeliveryOutcome {
        let defaults = AppClients(apns: apns, fcm: fcm, webPush: webPush)
        guard let apps else { return await self.send(send, to: provider, with: defaults) }
        var clients = defaults
        if !send.appID.isEmpty {
            switch apps.clients(ofApp: send.appID) {
            case .success(let app): clients = app
            case .failure(let refusal):
                apps.count(app: send.appID, provider: provider, status: refusal.rawValue)
                return .rejected(status: nil, reason: refusal.rawValue)
            }
        }
        let outcome = await self.send(send, to: provider, with: clients)
        apps.count(app: send.appID, provider: provider, status: outcome.metricStatus)
        return outcome
    }

    /// A Web Push send's push-service origin: its breaker and in-flight limit are that origin's.
    public func origin(of send: ProviderSend, to provider: PushProvider) -> String? {
        provider == .webpush ? send.request.origin : nil
    }

    private func send(_ send: ProviderSend, to provider: PushProvider, with clients: AppClients) async
        -> DeliveryOutcome
    {
        let request = send.request
        switch provider {
        case .apns:
            guard let apns = clients.apns else { return .rejected(status: nil, reason: "APNs is not configured") }
            return await apns.send(
                deviceToken: send.deviceToken, sandbox: request.sandbox,
                headers: request.headers.map { HTTPHeader($0.name, $0.value) }, body: request.body)
        case .fcm:
            guard let fcm = clients.fcm else { return .rejected(status: nil, reason: "FCM is not configured") }
            return await fcm.send(body: request.body)
        case .webpush:
            guard let webPush = clients.webPush else {
                return .rejected(status: nil, reason: "Web Push is not configured")
            }
            return await webPush.send(subscription: send.deviceToken, request: request)
        }
    }
}
