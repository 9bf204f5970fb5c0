/// The kind of a device subscription, as IMKIT's `POST /me/subscribe` names it.
public enum SubscriptionType: String, Sendable, Hashable, CaseIterable {
    case ios
    case iosVoip = "ios-voip"
    case android
    case fcm
    case web

    /// The push service this kind of device is sent through.
    public var platform: Platform {
        switch self {
        case .ios: .apns
        case .iosVoip: .apnsVoip
        case .android, .fcm: .fcm
        case .web: .web
        }
    }
}
