import Foundation

/// What one send to APNs or FCM came to, and so what the worker does next.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The provider accepted the notification; `providerMessageId` is the `apns-id` or the FCM message name.
    case delivered(providerMessageId: String)
    /// The device token is no longer valid: stop sending to it. `invalidSince` is APNs' 410 `timestamp`, if given.
    case invalidToken(reason: String, invalidSince: Date?)
    /// The provider refused this request for good; resending it unchanged will fail again.
    case rejected(status: Int?, reason: String)
    /// A transient failure: send again after `after` (the provider's Retry-After, or a floor such as
    /// `QUOTA_EXCEEDED`'s 60 s) or, when `nil`, after the retry policy's backoff.
    case retry(after: Duration?, status: Int?, reason: String)
    /// The provider refused our credentials and one renewal did not help: a provider-level failure
    /// (key, team, project or trust configuration), not something about this device.
    case credentials(status: Int?, reason: String)
}

extension DeliveryOutcome {
    /// The outcome an action comes to for a failed response.
    init(action: ProviderAction, status: Int, reason: String, retryAfter: Duration?, invalidSince: Date?) {
        switch action {
        case .invalidToken:
            self = .invalidToken(reason: reason, invalidSince: invalidSince)
        case .reject:
            self = .rejected(status: status, reason: reason)
        case .retry(let minimumDelay):
            let floors = [retryAfter, minimumDelay].compactMap { $0 }
            self = .retry(after: floors.max(), status: status, reason: reason)
        case .credentials:
            self = .credentials(status: status, reason: reason)
        }
    }
}
