/// What one send to APNs, FCM or a Web Push service came to, as the provider said it: its HTTP status when it answered (`nil` when no
/// response came or the client decided before sending) and its reason, verbatim (`Unregistered`,
/// `UNREGISTERED`, `transport: timeout`). Receipts, dead letters, logs and metrics take these as they are.
public enum DeliveryOutcome: Sendable, Equatable {
    /// Accepted; `providerMessageId` is the `apns-id` or the FCM message name.
    case delivered(providerMessageId: String?)
    /// The token is not (or no longer) valid: stop sending to it. `invalidSinceMillis` is APNs' 410 `timestamp`
    /// (epoch milliseconds) when it gave a plausible one.
    case invalidToken(status: Int?, reason: String, invalidSinceMillis: Int64?)
    /// Refused for good: sending the same request again will fail again.
    case rejected(status: Int?, reason: String)
    /// Refused as too large (a Web Push service's 413): dead-lettered as `payload_too_large`, not sent again.
    case tooLarge(status: Int?, reason: String)
    /// A transient failure (5xx, 429, a lost connection); `after` is at least the provider's Retry-After.
    case retry(status: Int?, reason: String, after: Duration?)
    /// The provider refused our credentials (key, team, project or trust configuration) and one renewal did not
    /// help: every send to it fails until that is fixed.
    case credentials(status: Int?, reason: String)

    /// Whether this outcome says the provider as a whole is failing (for the failure breaker).
    public var isProviderFailure: Bool {
        switch self {
        case .retry, .credentials: true
        case .delivered, .invalidToken, .rejected, .tooLarge: false
        }
    }

}
