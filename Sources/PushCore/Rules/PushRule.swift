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

    /// What kind of push the type produces.
    public var kind: Kind {
        get { box.fields.kind }
        set { change { $0.kind = newValue } }
    }
    /// The localization key (`im_loc_{type}`).
    public var locKey: Template {
        get { box.fields.locKey }
        set { change { $0.locKey = newValue } }
    }
    /// The localization arguments (`$1`, `$2`, …).
    public var locArgs: [Template] {
        get { box.fields.locArgs }
        set { change { $0.locArgs = newValue } }
    }
    /// The fallback title shown when the app has no translation, in the reader's language; empty renders as no title.
    public var title: LocalizedTemplate? {
        get { box.fields.title }
        set { change { $0.title = newValue } }
    }
    /// The fallback body shown when the app has no translation, in the reader's language.
    public var body: LocalizedTemplate? {
        get { box.fields.body }
        set { change { $0.body = newValue } }
    }
    /// The sound name; `nil` for none.
    public var sound: String? {
        get { box.fields.sound }
        set { change { $0.sound = newValue } }
    }
    /// The Android intent action when the notification is tapped.
    public var clickAction: String? {
        get { box.fields.clickAction }
        set { change { $0.clickAction = newValue } }
    }
    /// The Android notification icon resource.
    public var icon: String? {
        get { box.fields.icon }
        set { change { $0.icon = newValue } }
    }
    /// Collapses pending notifications with the same key (`apns-collapse-id`, `android.collapse_key`).
    public var collapseKey: Template? {
        get { box.fields.collapseKey }
        set { change { $0.collapseKey = newValue } }
    }
    /// Groups notifications (`aps.thread-id`, `android.notification.tag`).
    public var threadID: Template? {
        get { box.fields.threadID }
        set { change { $0.threadID = newValue } }
    }
    /// The APNs notification category (action buttons).
    public var category: String? {
        get { box.fields.category }
        set { change { $0.category = newValue } }
    }
    /// Lets the iOS notification service extension modify the notification (media download).
    public var mutableContent: Bool {
        get { box.fields.mutableContent }
        set { change { $0.mutableContent = newValue } }
    }
    /// FCM Android priority and APNs priority (10 / 5).
    public var priority: Priority {
        get { box.fields.priority }
        set { change { $0.priority = newValue } }
    }
    /// How long the provider keeps trying, and after which the worker no longer sends.
    public var timeToLiveSeconds: Int {
        get { box.fields.timeToLiveSeconds }
        set { change { $0.timeToLiveSeconds = newValue } }
    }
    /// The iOS interruption level (`passive`, `active`, `time-sensitive`, `critical`).
    public var interruptionLevel: String? {
        get { box.fields.interruptionLevel }
        set { change { $0.interruptionLevel = newValue } }
    }
    /// Keeps the message content out of every request (forced for `encrypted`).
    public var hidesContent: Bool {
        get { box.fields.hidesContent }
        set { change { $0.hidesContent = newValue } }
    }
    /// Forwards the event's `payload` object (FCM `data.payload`, VoIP call data).
    public var forwardsPayload: Bool {
        get { box.fields.forwardsPayload }
        set { change { $0.forwardsPayload = newValue } }
    }

    /// The fields, in an immutable reference that copies of the rule share: every event's planning takes a copy of
    /// its rule from the table and keeps it in the renderers' source, one retain where a copy of the fields was one
    /// per string and template. A change makes a new reference (rules are made once, when the table is loaded).
    private var box = Box(Fields())

    private final class Box: Sendable {
        let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private struct Fields: Sendable, Equatable {
        var kind: Kind = .alert
        var locKey = Template.imkitLocKey
        var locArgs: [Template] = []
        var title: LocalizedTemplate?
        var body: LocalizedTemplate?
        var sound: String? = "default"
        var clickAction: String? = "push_chatroom"
        var icon: String?
        var collapseKey: Template?
        var threadID: Template?
        var category: String?
        var mutableContent = false
        var priority: Priority = .high
        var timeToLiveSeconds = 86_400
        var interruptionLevel: String?
        var hidesContent = false
        var forwardsPayload = true
    }

    public init() {}

    public static func == (lhs: PushRule, rhs: PushRule) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    private mutating func change(_ body: (inout Fields) -> Void) {
        var fields = box.fields
        body(&fields)
        box = Box(fields)
    }
}
