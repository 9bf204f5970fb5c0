/// What happens to one device of an event: exactly one decision per device address.
public struct DeviceDecision: Sendable {
    public var address: DeviceAddress
    public var userID: String
    /// The device, or `nil` when its entry in the event was unusable.
    public var device: Device?
    public var outcome: Outcome
    /// The language of the request's fallback texts (`ko`, `zh-Hant`); `nil` when nothing is sent or the texts are
    /// the same in every language.
    public var locale: LanguageTag?

    public init(address: DeviceAddress, userID: String, device: Device?, outcome: Outcome, locale: LanguageTag? = nil) {
        self.address = address
        self.userID = userID
        self.device = device
        self.outcome = outcome
        self.locale = locale
    }

    /// The decision itself.
    public enum Outcome: Sendable {
        /// Send this exact request.
        case send(ProviderRequest)
        /// Do not send, by rule or because the user muted the room (receipt status `skipped`).
        case skipped(SkipReason)
        /// Older than its time to live: not sent (receipt status `expired`).
        case expired
        /// Cannot be sent; goes to the dead-letter topic with this reason.
        case deadLetter(EventError)
    }
}

/// A stable code for why a device was skipped (the receipt's `reason`).
public struct SkipReason: Sendable, Hashable, CustomStringConvertible {
    public let code: String

    public init(_ code: String) {
        self.code = code
    }

    /// The recipient muted the room (silent pushes are still sent).
    public static let muted = SkipReason("muted")
    /// The type's rule says `skip`.
    public static let rule = SkipReason("rule")
    /// The type is not in the rules table and the policy is `skip`.
    public static let unknownType = SkipReason("unknown_type")
    /// The device cannot receive this kind of push (an alert for a PushKit token, a call for a plain APNs token).
    public static let platform = SkipReason("platform")
    /// A provider declared the token dead before (the invalid-token table).
    public static let invalidToken = SkipReason("invalid_token")
    /// An IMKIT message's client has no device in the registry (receipt platform `none`).
    public static let noDevices = SkipReason("no_devices")
    /// An IMKIT message's client turned notifications off (`notificationEnabled: false`).
    public static let notificationsOff = SkipReason("notifications_off")
    /// `replay --skip-delivered`: the receipts already show this send delivered.
    public static let alreadyDelivered = SkipReason("already_delivered")

    public var description: String { code }
}
