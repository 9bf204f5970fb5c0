import Essentials
import Foundation
import PushCore

/// One token a provider called dead, as written to the invalid-token topic (meant to be compacted): keyed
/// `platform:tokenHash`, so the topic keeps one record per token. The only place besides narrowed events
/// where a raw token is written: its owner deletes the token from here. Pure.
public struct InvalidTokenRecord: Sendable, Equatable {
    public var platform: String
    public var token: String
    public var tokenHash: String
    public var userId: String
    /// The APNs topic (bundle id) or the FCM project the token belongs to, when known.
    public var app: String?
    /// The IMKIT app of the send that found it dead (the empty string: the default app), when known: with `userId`
    /// it makes the registry's client key.
    public var appID: String?
    /// The provider's reason (`Unregistered`, `BadDeviceToken`, `UNREGISTERED`, …).
    public var reason: String
    /// Since when the token is invalid: APNs' 410 timestamp, else the time of the answer (epoch ms).
    public var invalidSinceMillis: Int64
    /// The message whose send found it.
    public var messageId: String
    public var worker: String

    public init(
        platform: String, token: String, tokenHash: String, userId: String, app: String?, appID: String? = nil,
        reason: String, invalidSinceMillis: Int64, messageId: String, worker: String
    ) {
        self.platform = platform
        self.token = token
        self.tokenHash = tokenHash
        self.userId = userId
        self.app = app
        self.appID = appID
        self.reason = reason
        self.invalidSinceMillis = invalidSinceMillis
        self.messageId = messageId
        self.worker = worker
    }

    /// The record key: `platform:tokenHash` (`fcm:sha256:…`).
    public var key: String { Self.key(platform: platform, tokenHash: tokenHash) }

    public static func key(platform: String, tokenHash: String) -> String { platform + ":" + tokenHash }

    public func json() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512)
        writer.beginObject()
        writer.field("platform", platform)
        writer.field("token", token)
        writer.field("tokenHash", tokenHash)
        writer.field("userId", userId)
        writer.field("app", app.map(JSONValue.string) ?? .null)
        if let appID { writer.field("appID", appID) }
        writer.field("reason", reason)
        writer.field("invalidSince", RFC3339.format(epochMillis: invalidSinceMillis))
        writer.field("messageId", messageId)
        writer.field("worker", worker)
        writer.endObject()
        return writer.bytes
    }

    /// Reads a record's value; `nil` when it is not one (missing or mistyped fields).
    public init?(json bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes), let platform = value["platform"]?.stringValue,
            let token = value["token"]?.stringValue, let tokenHash = value["tokenHash"]?.stringValue,
            let userId = value["userId"]?.stringValue, let reason = value["reason"]?.stringValue,
            let since = value["invalidSince"]?.stringValue.flatMap(RFC3339.parse),
            let sinceMillis = Int64(exactly: (since.timeIntervalSince1970 * 1000).rounded(.down)),
            let messageId = value["messageId"]?.stringValue
        else { return nil }
        self.init(
            platform: platform, token: token, tokenHash: tokenHash, userId: userId, app: value["app"]?.stringValue,
            appID: value["appID"]?.stringValue, reason: reason, invalidSinceMillis: sinceMillis, messageId: messageId,
            worker: value["worker"]?.stringValue ?? "")
    }
}
