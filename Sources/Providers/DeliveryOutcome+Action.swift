import PushCore

extension DeliveryOutcome {
    /// The outcome an action comes to for a failed response.
    init(
        action: ProviderAction, status: Int, reason: String, retryAfter: Duration?, invalidSinceMillis: Int64?
    ) {
        switch action {
        case .invalidToken:
            self = .invalidToken(status: status, reason: reason, invalidSinceMillis: invalidSinceMillis)
        case .reject:
            self = .rejected(status: status, reason: reason)
        case .retry(let minimumDelay):
            let floors = [retryAfter, minimumDelay].compactMap { $0 }
            self = .retry(status: status, reason: reason, after: floors.max())
        case .credentials:
            self = .credentials(status: status, reason: reason)
        }
    }
}
