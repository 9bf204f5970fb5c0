import Essentials
public import Foundation

/// A decoded chat-message event: what to push, to whom, and the record it came from for narrowed retry records.
public struct ChatMessageEvent: Sendable {
    public var id: String
    public var type: String
    public var room: Room
    public var sender: Person
    /// The message text (or media reference); `nil` when absent.
    public var content: String?
    /// The second person of member events (`$2` of addMember / deleteMember).
    public var target: Person?
    /// When the message was created; `nil` when the event does not say.
    public var createdAt: Date?
    /// A body text the sender assembled itself (IMKIT v1's `alert`), used as given instead of the rule's body.
    public var alert: String? = nil
    /// The app the message belongs to (`appID`): it selects the APNs key and FCM project. Empty when absent: the
    /// default app.
    public var appID: String = ""
    public var recipients: [Recipient]
    /// The forwarded message object (FCM `data.payload`, VoIP call data).
    public var payload: JSONValue?
    /// Devices whose entry is unusable (bad platform or token), with why; the rest of the event still goes out.
    public var invalidDevices: [DeviceAddress: EventError]
    /// The record value exactly as received, unknown fields included (valid JSON: it was decoded from it).
    public var source: [UInt8]

    /// The room the message belongs to.
    public struct Room: Sendable, Equatable {
        public var id: String
        public var name: String?

        public init(id: String, name: String? = nil) {
            self.id = id
            self.name = name
        }
    }

    /// A sender or target of a message.
    public struct Person: Sendable, Equatable {
        public var id: String
        public var nickname: String?

        public init(id: String, nickname: String? = nil) {
            self.id = id
            self.nickname = nickname
        }
    }

    /// One user to notify and their devices.
    public struct Recipient: Sendable {
        public var userID: String
        public var badge: Int?
        public var muted: Bool
        /// The recipient's language (`recipients[].locale`, BCP 47 such as `ko-KR`, `zh-Hant`, `ja`): the language of
        /// the fallback texts. `nil` when absent or not a language tag; then the default locale applies.
        public var locale: LanguageTag?
        /// The devices in the order of the event; an unusable entry is `nil` and listed in `invalidDevices`.
        public var devices: [Device?]
    }

    /// Every device address of the event, valid or not, in event order.
    public var deviceAddresses: [DeviceAddress] {
        recipients.indices.flatMap { recipient in
            recipients[recipient].devices.indices.map { DeviceAddress(recipient: recipient, device: $0) }
        }
    }
}

/// A device registered for push.
public struct Device: Sendable, Equatable {
    public var platform: Platform
    /// The provider's device token; never log it (use `SHA256.tokenHash`).
    public var token: String
    /// An APNs topic (bundle id) other than the configured default.
    public var topic: String?
    /// A development-build APNs token, sent to the sandbox host.
    public var sandbox: Bool

    public init(platform: Platform, token: String, topic: String? = nil, sandbox: Bool = false) {
        self.platform = platform
        self.token = token
        self.topic = topic
        self.sandbox = sandbox
    }
}

/// The push service a device token belongs to.
public enum Platform: String, Sendable, CaseIterable {
    /// APNs user notifications (UserNotifications framework).
    case apns
    /// APNs VoIP pushes (PushKit).
    case apnsVoip = "apns-voip"
    /// Firebase Cloud Messaging HTTP v1.
    case fcm
    /// Web Push (RFC 8030): the token is a browser's push subscription (`WebPushSubscription`).
    case web
}

/// The position of one device in an event: the recipient's index and the device's index within it.
public struct DeviceAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var recipient: Int
    public var device: Int

    public init(recipient: Int, device: Int) {
        self.recipient = recipient
        self.device = device
    }

    public static func < (lhs: DeviceAddress, rhs: DeviceAddress) -> Bool {
        (lhs.recipient, lhs.device) < (rhs.recipient, rhs.device)
    }

    /// The JSON path of the device entry, e.g. `recipients[0].devices[1]`.
    public var description: String { "recipients[\(recipient)].devices[\(device)]" }
}
