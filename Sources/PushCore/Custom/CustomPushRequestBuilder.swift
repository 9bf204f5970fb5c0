import Essentials
public import Foundation

/// Builds the request of a custom push for one device, or says why there is none.
///
/// The payload's fields go to their homes on each platform:
/// - APNs: `aps.alert` the `alert` string as given, or an alert dictionary (Apple's recommended form) of `title`,
///   the `alert` text (else `body`), `loc-key` and `loc-args`; `aps.badge`, `aps.sound`; `apns-topic` the device's
///   topic, else `topic`, else the app's; `apns-expiration` `expiry`; custom keys `mid`, `type` and `payload`.
/// - Web Push: the plaintext `WebPushRequestBuilder` describes, `data` the payload object, `Urgency` `high` for a
///   push that shows something, `Topic` from `collapseKey`.
/// - FCM: `notification.title` / `.body` (`body`, else the `alert` text); `android.notification` `icon`, `sound`,
///   `notification_count` (`badge`), `body_loc_key` / `body_loc_args` of a localized alert; `android.collapse_key`;
///   `android.ttl` up to `expiry`; `data` `type`, `mid`, `loc-key`, `loc-args` and `payload` (the payload object as
///   JSON text), so an app parses the same members on both platforms.
///
/// A push that shows nothing is an APNs background push and an FCM data message. PushKit tokens get no custom push
/// (Apple requires a call for each VoIP push): `platform`. Over the size limit, the forwarded payload goes first,
/// then every text is cut on a grapheme-cluster boundary; `payload_too_large` when even that does not fit. Pure.
public struct CustomPushRequestBuilder: Sendable {
    public var context: ProviderContext

    /// The time to live of a push without `expiry`: a day, as the rules table's default.
    public static let defaultTimeToLiveSeconds: Int64 = 86_400
    /// The longest time to live FCM takes (28 days); a later `expiry` still goes to APNs as given.
    public static let maximumFCMTimeToLiveSeconds: Int64 = 2_419_200

    public init(context: ProviderContext) {
        self.context = context
    }

    /// The decision for `device` of `push` at `now`.
    public func outcome(for push: CustomPush, device: Device, now: Date) -> DeviceDecision.Outcome {
        guard device.platform != .apnsVoip, device.platform != .web || context.sendsWebPush else {
            return .skipped(.platform)
        }
        guard !Self.hasExpired(push, at: now) else { return .expired }
        let nowSeconds = Int64(clampingRoundedDown: now.timeIntervalSince1970)
        let expiresAt = push.payload.expiry ?? nowSeconds.addingClamped(Self.defaultTimeToLiveSeconds)
        let timeToLive = min(expiresAt - nowSeconds, Self.maximumFCMTimeToLiveSeconds)
        let limit = PayloadLimit.bytes(for: device.platform)
        let body = { (trim: Trim) -> [UInt8] in
            Self.body(push, platform: device.platform, token: device.token, timeToLive: timeToLive, trim: trim)
        }
        guard let fitted = Self.largestFitting(push, limit: limit, body: body) else {
            return .deadLetter(
                EventError(
                    .payloadTooLarge, path: "payload",
                    "the \(device.platform.rawValue) request does not fit \(limit) bytes even with every text cut"))
        }
        let seconds = Int(clamping: expiresAt)
        switch device.platform {
        case .apns, .apnsVoip:
            return .send(apnsRequest(push, device: device, body: fitted, expiresAt: seconds))
        case .fcm:
            return .send(
                ProviderRequest(
                    platform: .fcm, path: context.fcmSendPath,
                    headers: [.init("content-type", "application/json; charset=UTF-8")], body: fitted,
                    expiresAtEpochSeconds: seconds))
        case .web:
            // The decoder checked the token: a failure here is an invariant broken, not bad input.
            guard let subscription = try? WebPushSubscription(token: device.token) else {
                return .deadLetter(EventError(.decodeError, path: "clients", "invalid web subscription"))
            }
            return .send(
                WebPushRequestBuilder.request(
                    to: subscription, body: fitted, visible: push.payload.isVisible,
                    collapseKey: push.payload.collapseKey, timeToLiveSeconds: Int(clamping: expiresAt - nowSeconds),
                    expiresAt: seconds))
        }
    }

    private func apnsRequest(_ push: CustomPush, device: Device, body: [UInt8], expiresAt: Int) -> ProviderRequest {
        let visible = push.payload.isVisible
        let apnsID = DeterministicUUID.apnsID(messageID: push.id, device: device)
        return ProviderRequest(
            platform: device.platform, path: "/3/device/\(device.token)",
            headers: [
                .init("apns-push-type", visible ? "alert" : "background"),
                .init("apns-topic", device.topic ?? push.payload.topic ?? context.apnsTopic),
                .init("apns-priority", visible ? "10" : "5"),
                .init("apns-expiration", String(expiresAt)),
                .init("apns-id", apnsID),
            ],
            body: body, sandbox: device.sandbox, expiresAtEpochSeconds: expiresAt)
    }

    /// Whether `push`'s `expiry` is before `now`: no device gets it then (`expired`).
    public static func hasExpired(_ push: CustomPush, at now: Date) -> Bool {
        guard let expiry = push.payload.expiry else { return false }
        return expiry < Int64(clampingRoundedDown: now.timeIntervalSince1970)
    }

    /// The body of `push` for a device of `platform` with `token`, cut as `trim` says.
    static func body(_ push: CustomPush, platform: Platform, token: String, timeToLive: Int64, trim: Trim) -> [UInt8] {
        switch platform {
        case .apns, .apnsVoip: apnsBody(push, trim: trim)
        case .fcm: fcmBody(push, token: token, timeToLive: timeToLive, trim: trim)
        case .web: webBody(push, trim: trim)
        }
    }

    /// How far a body is cut down to fit.
    struct Trim: Equatable {
        var includesPayload = true
        /// The most grapheme clusters of every text (title, body, alert, each loc-arg).
        var textLimit: Int?
    }

    /// The body of the largest cut that fits `limit`: whole, without the payload, then with the longest text limit
    /// that fits (by binary search: the size grows with the limit).
    static func largestFitting(_ push: CustomPush, limit: Int, body: (Trim) -> [UInt8]) -> [UInt8]? {
        for trim in [Trim(), Trim(includesPayload: false)] {
            let bytes = body(trim)
            if bytes.count <= limit { return bytes }
        }
        var best: [UInt8]?
        var low = 0
        var high = min(longestText(push.payload), limit) - 1
        while low <= high {
            let middle = low + (high - low) / 2
            let bytes = body(Trim(includesPayload: false, textLimit: middle))
            if bytes.count <= limit {
                best = bytes
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }

    private static func longestText(_ payload: CustomPayload) -> Int {
        var texts = [payload.title, payload.body].compactMap { $0 }
        switch payload.alert {
        case .text(let text)?: texts.append(text)
        case .localized(_, let arguments)?: texts += arguments
        case nil: break
        }
        return texts.map(\.count).max() ?? 0
    }

    static func apnsBody(_ push: CustomPush, trim: Trim) -> [UInt8] {
        let payload = push.payload
        let cut = { (text: String?) in text?.truncated(toGraphemes: trim.textLimit) }
        var json = JSONWriter(reservingCapacity: 512)
        json.beginObject()
        json.key("aps")
        json.beginObject()
        if !payload.isVisible { json.field("content-available", 1) }
        switch (payload.alert, payload.title) {
        case (.text(let text)?, nil):
            json.field("alert", cut(text) ?? "")
        case (nil, nil) where payload.body == nil:
            break
        default:
            json.key("alert")
            json.beginObject()
            if let title = cut(payload.title) { json.field("title", title) }
            if case .text(let text)? = payload.alert {
                json.field("body", cut(text) ?? "")
            } else if let body = cut(payload.body) {
                json.field("body", body)
            }
            if case .localized(let key, let arguments)? = payload.alert {
                json.field("loc-key", key)
                json.key("loc-args")
                json.strings(arguments.map { $0.truncated(toGraphemes: trim.textLimit) })
            }
            json.endObject()
        }
        if let badge = payload.badge { json.field("badge", badge) }
        if let sound = payload.sound { json.field("sound", sound) }
        json.endObject()
        json.field("mid", push.id)
        if let type = payload.type { json.field("type", type) }
        if trim.includesPayload { json.field("payload", payload.object) }
        json.endObject()
        return json.bytes
    }

    static func webBody(_ push: CustomPush, trim: Trim) -> [UInt8] {
        let payload = push.payload
        let cut = { (text: String?) in text?.truncated(toGraphemes: trim.textLimit) }
        let body: String? =
            if let body = payload.body { body } else if case .text(let text)? = payload.alert { text } else { nil }
        var localized: (String, [String])?
        if case .localized(let key, let arguments)? = payload.alert {
            localized = (key, arguments.map { $0.truncated(toGraphemes: trim.textLimit) })
        }
        return WebPushRequestBuilder.body(
            title: cut(payload.title), body: cut(body), localized: localized, tag: nil, badge: payload.badge,
            data: trim.includesPayload ? payload.object : nil, messageID: push.id, type: payload.type, room: nil)
    }

    static func fcmBody(_ push: CustomPush, token: String, timeToLive: Int64, trim: Trim) -> [UInt8] {
        let payload = push.payload
        let cut = { (text: String?) in text?.truncated(toGraphemes: trim.textLimit) }
        let body: String? =
            if let body = payload.body { body } else if case .text(let text)? = payload.alert { text } else { nil }
        var json = JSONWriter(reservingCapacity: 768)
        json.beginObject()
        json.key("message")
        json.beginObject()
        json.field("token", token)
        if payload.title != nil || body != nil {
            json.key("notification")
            json.beginObject()
            if let title = cut(payload.title) { json.field("title", title) }
            if let body = cut(body) { json.field("body", body) }
            json.endObject()
        }
        json.key("android")
        json.beginObject()
        if let collapseKey = payload.collapseKey { json.field("collapse_key", collapseKey) }
        json.field("priority", payload.isVisible ? "HIGH" : "NORMAL")
        json.field("ttl", "\(timeToLive)s")
        let localized: Bool = if case .localized? = payload.alert { true } else { false }
        if payload.isVisible, localized || payload.icon != nil || payload.sound != nil || payload.badge != nil {
            json.key("notification")
            json.beginObject()
            if case .localized(let key, let arguments)? = payload.alert {
                json.field("body_loc_key", key)
                json.key("body_loc_args")
                json.strings(arguments.map { $0.truncated(toGraphemes: trim.textLimit) })
            }
            if let icon = payload.icon { json.field("icon", icon) }
            if let sound = payload.sound { json.field("sound", sound) }
            if let badge = payload.badge { json.field("notification_count", badge) }
            json.endObject()
        }
        json.endObject()
        json.key("data")
        json.beginObject()
        if case .localized(let key, let arguments)? = payload.alert {
            json.field("loc-key", key)
            var args = JSONWriter(reservingCapacity: 128)
            args.strings(arguments.map { $0.truncated(toGraphemes: trim.textLimit) })
            json.field("loc-args", String(decoding: args.bytes, as: UTF8.self))
        }
        if let type = payload.type { json.field("type", type) }
        json.field("mid", push.id)
        if trim.includesPayload {
            json.field("payload", String(decoding: JSONWriter.encode(payload.object), as: UTF8.self))
        }
        json.endObject()
        json.endObject()
        json.endObject()
        return json.bytes
    }
}
