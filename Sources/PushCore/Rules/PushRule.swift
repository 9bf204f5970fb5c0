/// How one message type is pushed: which kind of push, its texts, and its delivery options.
public struct PushRule: Sendable, Equatable {
    /// What kind of push the type produces.
    public enum Kind: String, Sendable, CaseIterable {
        /// A visible notification (APNs alert, FCM notification message).
        case alert
        /// A data-only push (APNs background, FCM data message), e.g. for unread-count sync. Sent to muted users too.
        case silent
        /// A PushKit VoIP push for calls (APNs `apns-voip` devices); FCM devices get a high-priority data message.
        case voip
        /// Nothing is sent; every device is recorded as skipped.
        case skip
    }

    /// FCM Android priority and APNs priority (10 / 5).
    public enum Priority: String, Sendable, CaseIterable {
        case high
        case normal
    }

    public var kind: Kind = .alert
    /// The localization key (`im_loc_{type}`).
    public var locKey = Template.imkitLocKey
    /// The localization arguments (`$1`, `$2`, …).
    public var locArgs: [Template] = []
    /// The fallback title shown when the app has no translation, in the reader's language; empty renders as no title.
    public var title: LocalizedTemplate?
    /// The fallback body shown when the app has no translation, in the reader's language.
    public var body: LocalizedTemplate?
    /// The sound name; `nil` for none.
    public var sound: String? = "default"
    /// The Android intent action when the notification is tapped.
    public var clickAction: String? = "push_chatroom"
    /// The Android notification icon resource.
    public var icon: String?
    /// Collapses pending notifications with the same key (`apns-collapse-id`, `android.collapse_key`).
    public var collapseKey: Template?
    /// Groups notifications (`aps.thread-id`, `android.notification.tag`).
    public var threadID: Template?
    /// The APNs notification category (action buttons).
    public var category: String?
    /// Lets the iOS notification service extension modify the notification (media download).
    public var mutableContent = false
    public var priority: Priority = .high
    /// How long the provider keeps trying, and after which the worker no longer sends.
    public var timeToLiveSeconds = 86_400
    /// The iOS interruption level (`passive`, `active`, `time-sensitive`, `critical`).
    public var interruptionLevel: String?
    /// Keeps the message content out of every request (forced for `encrypted`).
    public var hidesContent = false
    /// Forwards the event's `payload` object (FCM `data.payload`, VoIP call data).
    public var forwardsPayload = true

    public init() {}
}
