/// Apple's table of APNs error reasons: reason → status → action (Apple's "Handling notification responses from
/// APNs"). Statuses without a known reason fall back to `action(forStatus:)`.
enum APNsReason {
    struct Entry: Sendable, Equatable {
        var status: Int
        var action: ProviderAction
    }

    /// Every reason Apple documents, with the status it comes with and what to do about it.
    static let table: [String: Entry] = [
        // 400 Bad request: the request is malformed; fix it, do not resend it unchanged.
        "BadCollapseId": Entry(status: 400, action: .reject),
        "BadDeviceToken": Entry(status: 400, action: .invalidToken),
        "BadExpirationDate": Entry(status: 400, action: .reject),
        "BadMessageId": Entry(status: 400, action: .reject),
        "BadPriority": Entry(status: 400, action: .reject),
        "BadTopic": Entry(status: 400, action: .reject),
        "DeviceTokenNotForTopic": Entry(status: 400, action: .reject),
        "DuplicateHeaders": Entry(status: 400, action: .reject),
        "IdleTimeout": Entry(status: 400, action: .retry(minimumDelay: nil)),
        "InvalidPushType": Entry(status: 400, action: .reject),
        "MissingDeviceToken": Entry(status: 400, action: .reject),
        "MissingTopic": Entry(status: 400, action: .reject),
        "PayloadEmpty": Entry(status: 400, action: .reject),
        "TopicDisallowed": Entry(status: 400, action: .reject),
        // 403: certificate or provider token problems; only an expired token is fixed by a new one.
        "BadCertificate": Entry(status: 403, action: .credentials(renewable: false)),
        "BadCertificateEnvironment": Entry(status: 403, action: .credentials(renewable: false)),
        "ExpiredProviderToken": Entry(status: 403, action: .credentials(renewable: true)),
        "Forbidden": Entry(status: 403, action: .reject),
        "InvalidProviderToken": Entry(status: 403, action: .credentials(renewable: false)),
        "MissingProviderToken": Entry(status: 403, action: .credentials(renewable: false)),
        "UnrelatedKeyIdInToken": Entry(status: 403, action: .credentials(renewable: false)),
        "BadEnvironmentKeyInToken": Entry(status: 403, action: .credentials(renewable: false)),
        // 404, 405: the request line is wrong.
        "BadPath": Entry(status: 404, action: .reject),
        "MethodNotAllowed": Entry(status: 405, action: .reject),
        // 410: the token is no longer active for the topic.
        "ExpiredToken": Entry(status: 410, action: .invalidToken),
        "Unregistered": Entry(status: 410, action: .invalidToken),
        // 413
        "PayloadTooLarge": Entry(status: 413, action: .reject),
        // 429: too many requests for one device token, or provider tokens renewed too often (never renew on it).
        "TooManyProviderTokenUpdates": Entry(status: 429, action: .retry(minimumDelay: nil)),
        "TooManyRequests": Entry(status: 429, action: .retry(minimumDelay: nil)),
        // 500, 503
        "InternalServerError": Entry(status: 500, action: .retry(minimumDelay: nil)),
        "ServiceUnavailable": Entry(status: 503, action: .retry(minimumDelay: nil)),
        "Shutdown": Entry(status: 503, action: .retry(minimumDelay: nil)),
    ]

    /// The action for a failed status whose reason is missing or not in the table.
    static func action(forStatus status: Int) -> ProviderAction {
        switch status {
        case 403: .credentials(renewable: false)
        case 410: .invalidToken
        case 408, 429, 500...599: .retry(minimumDelay: nil)
        default: .reject
        }
    }
}
