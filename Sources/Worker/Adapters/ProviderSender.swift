import HTTPTypes
import Providers
import PushCore
import PushPipeline

/// The sender port over the APNs and FCM clients: the default app's, or, for a message with an `appID`, that app's
/// of `PUSH_APPS_DIR`.
public struct ProviderSender: PushSender {
    private let apns: APNsClient?
    private let fcm: FCMClient?
    private let apps: AppSenders?

    public init(apns: APNsClient?, fcm: FCMClient?) {
        self.init(apns: apns, fcm: fcm, apps: nil)
    }

    /// With `apps`, a send with an `appID` goes with that app's clients; without, every send goes with the default
    /// app's.
    init(apns: APNsClient?, fcm: FCMClient?, apps: AppSenders?) {
        self.apns = apns
        self.fcm = fcm
        self.apps = apps
    }

    /// The providers with a client, in `PushProvider` order: every provider when apps may bring their own.
    public var configuredProviders: [PushProvider] {
        guard apps == nil else { return PushProvider.allCases }
        return PushProvider.allCases.filter { $0 == .apns ? apns != nil : fcm != nil }
    }

    public func send(_ send: ProviderSend, to provider: PushProvider) async -> DeliveryOutcome {
        guard let apps else { return await self.send(send, to: provider, with: AppClients(apns: apns, fcm: fcm)) }
        var clients = AppClients(apns: apns, fcm: fcm)
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
        }
    }
}
