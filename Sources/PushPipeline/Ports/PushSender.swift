/// How one send to a provider ended.
public enum SendOutcome: Sendable, Equatable {
    /// Accepted; `providerMessageId` is the `apns-id` or the FCM message name.
    case delivered(providerMessageId: String?)
    /// The token is not (or no longer) valid; `timestampMillis` is APNs' last-valid time when given.
    case invalidToken(reason: String, status: Int, timestampMillis: Int64?)
    /// A permanent refusal: sending again will not help.
    case rejected(reason: String, status: Int)
    /// A transient failure (5xx, 429, connection error when `status` is nil); `after` is Retry-After.
    case retry(reason: String, status: Int?, after: Duration?)
    /// The provider refused our credentials: every send to it fails until that is fixed.
    case credentials(reason: String)

    /// Whether this outcome says the provider as a whole is failing (for the failure breaker).
    var isProviderFailure: Bool {
        switch self {
        case .retry, .credentials: true
        case .delivered, .invalidToken, .rejected: false
        }
    }
}

/// Sends one provider request.
public protocol PushSender<Request>: Sendable {
    associatedtype Request: Sendable
    /// Sends `request` to `provider` once and classifies the answer; never throws.
    func send(_ request: Request, to provider: PushProvider) async -> SendOutcome
}

/// The delay before the next attempt: backoff with jitter, never shorter than Retry-After.
public protocol RetryDelayPolicy: Sendable {
    /// The delay after `attempts` failed attempts (1 after the first), given the provider's Retry-After.
    func delay(afterAttempts attempts: Int, retryAfter: Duration?) -> Duration
}
