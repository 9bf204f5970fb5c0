import Essentials

/// Builds FCM HTTP v1 requests (`POST /v1/projects/<project>/messages:send`).
///
/// The legacy fields of the IMKIT format move to their v1 homes: `collapseKey` → `android.collapse_key`,
/// `timeToLive` → `android.ttl` (`"3600s"`), `notification.title/body` → `notification`,
/// `icon`, `body_loc_key`, `body_loc_args`, `click_action` → `android.notification`, `badge` →
/// `android.notification.notification_count`, and `data` stays `data` with every value a string
/// (`loc-args` and `payload` as JSON text).
struct FCMRequestBuilder {
    let context: ProviderContext

    /// The request with a device's `body` (`body(_:token:badge:)`, built and size-checked by the planner).
    func request(body: [UInt8], expiresAt: Int) -> ProviderRequest {
        ProviderRequest(
            platform: .fcm, method: "POST", path: context.fcmSendPath, headers: Self.headers, body: body,
            sandbox: false, expiresAtEpochSeconds: expiresAt)
    }

    /// The headers of every request, shared by them.
    private static let headers = [ProviderRequest.Header("content-type", "application/json; charset=UTF-8")]

    /// Where the token's bytes start in a body, after `{"message":{"token":"`: the token is the message's first member.
    static let tokenOffset = #"{"message":{"token":""#.utf8.count

    /// What `token` adds to a body written for an empty token: its bytes as a JSON string, without the quotes.
    static func tokenBytes(_ token: String) -> Int {
        var json = JSONWriter(reservingCapacity: token.utf8.count + 2)
        json.string(token)
        return json.bytes.count - 2
    }

    static func body(_ push: RenderedPush, token: String, badge: Int?) -> [UInt8] {
        let visible = push.source.rule.kind == .alert
        // Room for a chat message's body (its text three times, the token, the payload): one that outgrows the room
        // is copied into twice as much.
        var json = JSONWriter(reservingCapacity: 1024)
        json.beginObject()
        json.key(literal: "message")
        json.beginObject()
        // The first member: `tokenOffset` says where it starts.
        json.field(literal: "token", token)
        if visible, push.title != nil || push.body != nil {
            json.key(literal: "notification")
            json.beginObject()
            if let title = push.title { json.field(literal: "title", title) }
            if let body = push.body { json.field(literal: "body", body) }
            json.endObject()
        }
        json.key(literal: "android")
        json.beginObject()
        if let collapseKey = push.collapseKey, push.source.rule.kind != .voip {
            json.field(literal: "collapse_key", collapseKey)
        }
        json.field(
            literal: "priority",
            push.source.rule.priority == .high || push.source.rule.kind == .voip ? "HIGH" : "NORMAL")
        json.field(literal: "ttl", String(push.source.rule.timeToLiveSeconds) + "s")
        if visible { androidNotification(push, badge: badge, into: &json) }
        json.endObject()
        data(push, badge: badge, into: &json)
        json.endObject()
        json.endObject()
        return json.bytes
    }

    private static func androidNotification(_ push: RenderedPush, badge: Int?, into json: inout JSONWriter) {
        json.key(literal: "notification")
        json.beginObject()
        json.field(literal: "body_loc_key", push.locKey)
        json.key(literal: "body_loc_args")
        json.strings(push.locArgs)
        if let clickAction = push.source.rule.clickAction { json.field(literal: "click_action", clickAction) }
        if let icon = push.source.rule.icon { json.field(literal: "icon", icon) }
        if let sound = push.source.rule.sound { json.field(literal: "sound", sound) }
        if let badge { json.field(literal: "notification_count", badge) }
        if let threadID = push.threadID { json.field(literal: "tag", threadID) }
        json.endObject()
    }

    private static func data(_ push: RenderedPush, badge: Int?, into json: inout JSONWriter) {
        json.key(literal: "data")
        json.beginObject()
        if push.source.rule.kind == .alert {
            json.field(literal: "loc-key", push.locKey)
            var args = JSONWriter(reservingCapacity: 128)
            args.strings(push.locArgs)
            json.key(literal: "loc-args")
            json.string(utf8: args.bytes)
        }
        json.field(literal: "type", push.type)
        json.field(literal: "room", push.roomID)
        json.field(literal: "mid", push.messageID)
        if push.source.rule.kind == .voip {
            json.field(literal: "callerId", push.senderID)
            json.field(literal: "callerName", push.senderNickname)
        }
        if push.source.rule.kind == .silent, let badge { json.field(literal: "badge", String(badge)) }
        if let payload = push.payload {
            json.key(literal: "payload")
            json.string(utf8: JSONWriter.encode(payload))
        }
        json.endObject()
    }
}
