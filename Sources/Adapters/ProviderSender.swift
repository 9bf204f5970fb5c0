import HTTPTypes
import PipelineMetrics
import Providers
public import PushCore
public import PushPipeline

/// The sender port over the apps table (`AppSenders`): a send goes with the APNs, FCM and Web Push clients of its
/// `appID`'s app, the default app's for the empty `appID`.
public struct ProviderSender: PushSender {
    private let apps: AppSenders

    init(apps: AppSenders) {
        self.apps = apps
    }

    /// The providers with a client, in `PushProvider` order: every provider when app folders may bring their own.
    public var configuredProviders: [PushProvider] { apps.configuredProviders }

    public func send(_ send: ProviderSend, to provider: PushProvider) async -> DeliveryOutcome {
        let clients: AppClients
        switch apps.clients(ofApp: send.appID) {
        case .success(let app): clients = app
        case .failure(let refusal):
            apps.count(app: send.appID, provider: provider, status: refusal.rawValue)
            return .rejected(status: nil, reason: refusal.rawValue)
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
