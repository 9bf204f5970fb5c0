import HTTPTypes
import Providers
import PushCore
import PushPipeline

/// The sender port over the APNs and FCM clients.
public struct ProviderSender: PushSender {
    private let apns: APNsClient?
    private let fcm: FCMClient?

    public init(apns: APNsClient?, fcm: FCMClient?) {
        self.apns = apns
        self.fcm = fcm
    }

    /// The providers with a client, in `PushProvider` order.
    public var configuredProviders: [PushProvider] {
        PushProvider.allCases.filter { $0 == .apns ? apns != nil : fcm != nil }
    }

    public func send(_ send: ProviderSend, to provider: PushProvider) async -> DeliveryOutcome {
        let request = send.request
        switch provider {
        case .apns:
            guard let apns else { return .rejected(status: nil, reason: "APNs is not configured") }
            return await apns.send(
                deviceToken: send.deviceToken, sandbox: request.sandbox,
                headers: request.headers.map { HTTPHeader($0.name, $0.value) }, body: request.body)
        case .fcm:
            guard let fcm else { return .rejected(status: nil, reason: "FCM is not configured") }
            return await fcm.send(body: request.body)
        }
    }
}
