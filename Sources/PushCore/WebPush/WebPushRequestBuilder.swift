import Essentials

/// Builds Web Push requests (RFC 8030): `POST` to the subscription's endpoint with `TTL`, `Urgency`, `Topic`,
/// `Content-Encoding: aes128gcm` and `Content-Type: application/octet-stream`; the body is the plaintext the
/// page's service worker reads, which the sender encrypts for the subscription (RFC 8291) and signs for (VAPID).
///
/// The plaintext is one JSON object: `title`, `body` (the fallback texts in the reader's language), `loc-key`,
/// `loc-args`, `tag` (the rule's thread id, by default the room), `badge`, `data` (the forwarded payload), `mid`
/// (the message id), `type` and `room`. A silent push carries no texts. It fits one record
/// (`PayloadLimit.web` bytes), cut like the other platforms' bodies, never as bytes.
public enum WebPushRequestBuilder {
    /// The request to `subscription` with `body`, a plaintext of at most `PayloadLimit.web` bytes.
    static func request(
        to subscription: WebPushSubscription, body: [UInt8], visible: Bool, collapseKey: String?,
        timeToLiveSeconds: Int, expiresAt: Int
    ) -> ProviderRequest {
        var headers = [
            ProviderRequest.Header("ttl", String(max(0, timeToLiveSeconds))),
            ProviderRequest.Header("urgency", visible ? "high" : "normal"),
        ]
        if let collapseKey { headers.append(.init("topic", topic(collapseKey))) }
        headers.append(.init("content-encoding", "aes128gcm"))
        headers.append(.init("content-type", "application/octet-stream"))
        return ProviderRequest(
            platform: .web, method: "POST", path: subscription.endpoint, headers: headers, body: body,
            expiresAtEpochSeconds: expiresAt, origin: subscription.origin)
    }

    /// The `Topic` header of `collapseKey`: the key itself when it is at most 32 characters of the URL-safe base64
    /// alphabet (RFC 8030 §5.4), else the first 32 characters of its SHA-256 in base64url, the same for the same key.
    public static func topic(_ collapseKey: String) -> String {
        let isURLSafe = collapseKey.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        if isURLSafe, (1...32).contains(collapseKey.utf8.count) { return collapseKey }
        return String(Base64URL.encode(SHA256.hash(utf8: collapseKey)).prefix(32))
    }

    /// The plaintext of an event's push (the rules table's rendering).
    static func body(_ push: RenderedPush, badge: Int?) -> [UInt8] {
        let visible = push.source.rule.kind != .silent
        return body(
            title: visible ? push.title : nil, body: visible ? push.body : nil,
            localized: visible ? (push.locKey, push.locArgs) : nil, tag: push.threadID ?? push.roomID, badge: badge,
            data: push.payload, messageID: push.messageID, type: push.type, room: push.roomID)
    }

    /// The plaintext JSON object; absent values are left out.
    static func body(
        title: String?, body: String?, localized: (key: String, arguments: [String])?, tag: String?, badge: Int?,
        data: JSONValue?, messageID: String, type: String?, room: String?
    ) -> [UInt8] {
        var json = JSONWriter(reservingCapacity: 512)
        json.beginObject()
        if let title { json.field("title", title) }
        if let body { json.field("body", body) }
        if let localized {
            json.field("loc-key", localized.key)
            json.key("loc-args")
            json.strings(localized.arguments)
        }
        if let tag { json.field("tag", tag) }
        if let badge { json.field("badge", badge) }
        if let data { json.field("data", data) }
        json.field("mid", messageID)
        if let type { json.field("type", type) }
        if let room { json.field("room", room) }
        json.endObject()
        return json.bytes
    }
}
