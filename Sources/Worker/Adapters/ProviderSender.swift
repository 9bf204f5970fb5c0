import Foundation
import HTTP2
import HTTPTypes
import Providers
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

    public func send(_ send: ProviderSend, to provider: PushProvider) async -> SendOutcome {
        let request = send.request
        let outcome: DeliveryOutcome
        switch provider {
        case .apns:
            guard let apns else { return .rejected(reason: "APNs is not configured", status: 0) }
            outcome = await apns.send(
                deviceToken: send.deviceToken, sandbox: request.sandbox,
                headers: request.headers.map { HTTPHeader($0.name, $0.value) }, body: request.body)
        case .fcm:
            guard let fcm else { return .rejected(reason: "FCM is not configured", status: 0) }
            outcome = await fcm.send(body: request.body)
        }
        return Self.sendOutcome(outcome, apnsID: request.apnsID)
    }

    /// The worker's view of a provider outcome; an APNs delivery is named by the `apns-id` we sent.
    static func sendOutcome(_ outcome: DeliveryOutcome, apnsID: String?) -> SendOutcome {
        switch outcome {
        case .delivered(let id):
            return .delivered(providerMessageId: id.isEmpty ? apnsID : id)
        case .invalidToken(let reason, let since):
            return .invalidToken(
                reason: reason, status: since == nil ? 400 : 410,
                timestampMillis: since.flatMap { Int64(exactly: ($0.timeIntervalSince1970 * 1000).rounded()) })
        case .rejected(let status, let reason):
            return .rejected(reason: reason, status: status ?? 0)
        case .retry(let after, let status, let reason):
            return .retry(reason: reason, status: status, after: after)
        case .credentials(_, let reason):
            return .credentials(reason: reason)
        }
    }
}
