public import PushCore

extension DeliveryOutcome {
    /// The case name, for tables of expected classes.
    public var className: String {
        switch self {
        case .delivered: "delivered"
        case .invalidToken: "invalidToken"
        case .rejected: "rejected"
        case .tooLarge: "tooLarge"
        case .retry: "retry"
        case .credentials: "credentials"
        }
    }

    /// The provider's reason, nil for a delivery.
    public var reason: String? {
        switch self {
        case .delivered: nil
        case .invalidToken(_, let reason, _), .rejected(_, let reason), .retry(_, let reason, _),
            .credentials(_, let reason), .tooLarge(_, let reason):
            reason
        }
    }
}
