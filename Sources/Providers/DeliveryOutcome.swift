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

/// What an entry of a classification table tells the client to do with a status and reason.
enum ProviderAction: Sendable, Equatable {
    /// The device token is dead.
    case invalidToken
    /// Permanent failure of this request.
    case reject
    /// Transient failure; `minimumDelay` is a floor on the wait, if the provider asks for one.
    case retry(minimumDelay: Duration?)
    /// Our credentials were refused; `renewable` says whether a fresh token can fix it (retried once).
    case credentials(renewable: Bool)
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
