import Foundation

/// A custom push, as IMKIT's `POST /push/push2clients` takes it and as a record of the input topics carries it:
/// the same notification to every device of the listed clients, its texts and options given by the caller instead
/// of a rule.
public struct CustomPush: Sendable {
    /// `id`; when a record has none, one derived from its bytes, so a redelivery keeps it.
    public var id: String
    /// `appID`; the empty string for the default app.
    public var appID: String
    /// The clients to push to, each once, in the record's order.
    public var clients: [String]
    public var payload: CustomPayload
    /// The devices resolved before (`recipients`, as a chat-message event lists them): what a retry or dead-letter
    /// record of a custom push carries, sent to as listed without a new registry look-up. `nil` for a new push.
    public var recipients: [ChatMessageEvent.Recipient]?
    /// Entries of `recipients` that are unusable (bad platform or token), with why.
    public var invalidDevices: [DeviceAddress: EventError]
    /// The record exactly as received, unknown fields included.
    public var original: JSONValue
}

/// The notification of a custom push: IMKIT's `payload` fields. iOS reads `alert`, `badge`, `sound`, `topic` and
/// `expiry`; Android `title`, `body`, `icon` and `collapseKey`; both `type` and the whole object.
public struct CustomPayload: Sendable, Equatable {
    /// `alert`: the text as given, or a localization key with its arguments.
    public enum Alert: Sendable, Equatable {
        case text(String)
        case localized(key: String, arguments: [String])
    }

    /// `type`: the app's own classification (FCM `data.type`, the APNs custom key `type`, the receipts' type).
    public var type: String?
    /// `expiry`: when the push stops being worth delivering, in Unix seconds.
    public var expiry: Int64?
    public var alert: Alert?
    public var badge: Int?
    public var sound: String?
    /// `topic`: the bundle id (`apns-topic`) when the device names none.
    public var topic: String?
    public var title: String?
    public var body: String?
    public var icon: String?
    public var collapseKey: String?
    /// The payload object as given, unknown members included: FCM `data.payload` and the APNs custom key `payload`.
    public var object: JSONValue

    /// Whether the push shows something (an alert, a title or body, a sound or a badge); one that does not is a
    /// background push (APNs) or a data message (FCM).
    public var isVisible: Bool {
        alert != nil || title != nil || body != nil || sound != nil || badge != nil
    }
}
