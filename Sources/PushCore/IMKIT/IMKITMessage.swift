public import Foundation

/// A message in IMKIT's flattened Message Model, as IMKIT's external push services post it (`PUSH_GENERIC`, v2, and
/// `PUSH`, v1): what to push, and to which clients. The clients' devices come from the device registry.
public struct IMKITMessage: Sendable {
    /// `_id`, else `id`.
    public var id: String
    /// `messageType`.
    public var type: String
    /// `message`, when it is text.
    public var content: String?
    /// `room` (the id) and `roomName` (the title).
    public var room: ChatMessageEvent.Room
    public var sender: ChatMessageEvent.Person
    /// The second person of member events: `member`, or the invitees / removed members of `addMembers` /
    /// `deleteMembers` (the first one's id, every nickname joined by `, `).
    public var target: ChatMessageEvent.Person?
    /// `messageTimeMS`, else `createdAtMS`, else `messageTime`.
    public var createdAt: Date?
    /// `appID`; the empty string for the default app.
    public var appID: String
    /// The clients to push to, each once, in the message's order, never the sender.
    public var clients: [String]
    /// What IMKIT's v1 (`PUSH`) assembled itself: the recipient's unread count and the alert text.
    public var assembled: Assembled?
    /// The message exactly as received: it goes to FCM `data.payload`.
    public var original: JSONValue

    /// IMKIT v1's pre-assembled push, used as given.
    public struct Assembled: Sendable, Equatable {
        public var badge: Int?
        public var alert: String?

        public init(badge: Int?, alert: String?) {
            self.badge = badge
            self.alert = alert
        }
    }
}
