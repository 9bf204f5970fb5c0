import Essentials

/// Builds APNs HTTP/2 requests (`POST /3/device/<token>`): headers and the `aps` body.
struct APNsRequestBuilder {
    let context: ProviderContext

    /// The longest `apns-collapse-id` APNs accepts, in bytes.
    static let maximumCollapseIDBytes = 64

    /// The request for `device` with its `body` (`body(_:voip:badge:)`, built and size-checked by the planner).
    func request(_ push: RenderedPush, device: Device, body: [UInt8], expiresAt: Int) -> ProviderRequest {
        let voip = device.platform == .apnsVoip
        let topic = device.topic ?? context.apnsTopic
        var headers: [ProviderRequest.Header] = []
        headers.reserveCapacity(6)
        switch push.source.rule.kind {
        case .voip where voip:
            headers.append(.init("apns-push-type", "voip"))
            headers.append(.init("apns-topic", topic + ".voip"))
            headers.append(.init("apns-priority", "10"))
        case .silent:
            headers.append(.init("apns-push-type", "background"))
            headers.append(.init("apns-topic", topic))
            headers.append(.init("apns-priority", "5"))
        default:
            headers.append(.init("apns-push-type", "alert"))
            headers.append(.init("apns-topic", topic))
            headers.append(.init("apns-priority", push.source.rule.priority == .high ? "10" : "5"))
        }
        headers.append(.init("apns-expiration", String(push.source.rule.timeToLiveSeconds == 0 ? 0 : expiresAt)))
        if let collapseKey = push.collapseKey, !collapseKey.isEmpty, !voip {
            headers.append(.init("apns-collapse-id", Self.collapseID(collapseKey)))
        }
        headers.append(.init("apns-id", DeterministicUUID.apnsID(messageID: push.messageID, device: device)))
        return ProviderRequest(
            platform: device.platform, method: "POST", path: "/3/device/\(device.token)", headers: headers,
            body: body, sandbox: device.sandbox,
            expiresAtEpochSeconds: expiresAt)
    }

    /// The body for a PushKit (`voip`) or a user-notification token: the call data, a background push or an alert.
    static func body(_ push: RenderedPush, voip: Bool, badge: Int?) -> [UInt8] {
        switch push.source.rule.kind {
        case .voip where voip: voipBody(push)
        case .silent: backgroundBody(push, badge: badge)
        default: alertBody(push, badge: badge)
        }
    }

    /// The collapse key itself when it is a legal header value APNs accepts (at most 64 bytes of printable ASCII
    /// without spaces, 0x21 to 0x7E), otherwise its SHA-256 in hex (64 characters): the same key always gives the
    /// same id, and no room id can make the header illegal.
    static func collapseID(_ key: String) -> String {
        let bytes = key.utf8
        let legal = bytes.count <= maximumCollapseIDBytes && bytes.allSatisfy { (0x21...0x7E).contains($0) }
        return legal ? key : SHA256.hexDigest(key)
    }

    static func alertBody(_ push: RenderedPush, badge: Int?) -> [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key(literal: "aps")
        json.beginObject()
        json.key(literal: "alert")
        json.beginObject()
        if let title = push.title { json.field(literal: "title", title) }
        if let body = push.body { json.field(literal: "body", body) }
        json.field(literal: "loc-key", push.locKey)
        json.key(literal: "loc-args")
        json.strings(push.locArgs)
        json.endObject()
        if let badge { json.field(literal: "badge", badge) }
        if let sound = push.source.rule.sound { json.field(literal: "sound", sound) }
        if let threadID = push.threadID { json.field(literal: "thread-id", threadID) }
        if let category = push.source.rule.category { json.field(literal: "category", category) }
        if push.source.rule.mutableContent { json.field(literal: "mutable-content", 1) }
        if let level = push.source.rule.interruptionLevel { json.field(literal: "interruption-level", level) }
        json.endObject()
        customKeys(push, into: &json)
        json.endObject()
        return json.bytes
    }

    /// A background push: `aps` holds only `content-available`, as Apple requires; the badge travels as data.
    static func backgroundBody(_ push: RenderedPush, badge: Int?) -> [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key(literal: "aps")
        json.beginObject()
        json.field(literal: "content-available", 1)
        json.endObject()
        customKeys(push, into: &json)
        if let badge { json.field(literal: "badge", badge) }
        if let payload = push.payload { json.field(literal: "payload", payload) }
        json.endObject()
        return json.bytes
    }

    /// A PushKit payload: the call's data, not the alert format; `aps` stays empty (APNs wants the dictionary).
    static func voipBody(_ push: RenderedPush) -> [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key(literal: "aps")
        json.beginObject()
        json.endObject()
        customKeys(push, into: &json)
        json.key(literal: "caller")
        json.beginObject()
        json.field(literal: "id", push.senderID)
        json.field(literal: "name", push.senderNickname)
        json.endObject()
        if let payload = push.payload { json.field(literal: "payload", payload) }
        json.endObject()
        return json.bytes
    }

    /// Short keys outside `aps`: the room, the message id and the type.
    private static func customKeys(_ push: RenderedPush, into json: inout JSONWriter) {
        json.field(literal: "room", push.roomID)
        json.field(literal: "mid", push.messageID)
        json.field(literal: "type", push.type)
    }
}
