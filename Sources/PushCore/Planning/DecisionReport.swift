import Essentials
public import Foundation

/// A JSON report of an event's decisions, one entry per device with the full request when sent: what
/// `push-worker render` prints and what the golden files hold.
public enum DecisionReport {
    /// The report as indented JSON. `unsent` (an IMKIT message's clients and devices its resolution left out) follow
    /// the event's devices, each `skipped` with its reason, as their receipts do.
    public static func json(
        event: ChatMessageEvent, decisions: [DeviceDecision], now: Date, unsent: [UnsentDevice] = []
    ) -> String {
        // Built as a value and indented once: writing it as text first would parse every body a second time.
        JSONPrettyPrinter.format(
            .object([
                JSONMember("messageId", .string(event.id)),
                JSONMember("type", .string(event.type)),
                JSONMember("plannedAt", .string(plannedAt(now))),
                JSONMember("devices", .array(decisions.map(entry) + unsent.map(entry))),
            ]))
    }

    private static func entry(_ unsent: UnsentDevice) -> JSONValue {
        var members = [
            JSONMember("userId", .string(unsent.clientID)), JSONMember("platform", .string(unsent.platform)),
        ]
        if let token = unsent.token { members.append(JSONMember("tokenHash", .string(SHA256.tokenHash(token)))) }
        members.append(JSONMember("decision", .string("skipped")))
        members.append(JSONMember("reason", .string(unsent.reason.code)))
        return .object(members)
    }

    /// `now` in RFC 3339 whole seconds, as the golden files hold it.
    private static func plannedAt(_ now: Date) -> String {
        RFC3339.format(
            epochMillis: Int64(clampingRoundedDown: now.timeIntervalSince1970 * 1000), withMilliseconds: false)
    }

    private static func entry(_ decision: DeviceDecision) -> JSONValue {
        var members = [
            JSONMember("device", .string(decision.address.description)),
            JSONMember("userId", .string(decision.userID)),
        ]
        if let device = decision.device {
            members.append(JSONMember("platform", .string(device.platform.rawValue)))
            members.append(JSONMember("tokenHash", .string(SHA256.tokenHash(device.token))))
        }
        switch decision.outcome {
        case .send(let request):
            members.append(JSONMember("decision", .string("send")))
            if let locale = decision.locale { members.append(JSONMember("locale", .string(locale.description))) }
            members.append(JSONMember("request", requestValue(request)))
        case .skipped(let reason):
            members.append(JSONMember("decision", .string("skipped")))
            members.append(JSONMember("reason", .string(reason.code)))
        case .expired:
            members.append(JSONMember("decision", .string("expired")))
        case .deadLetter(let error):
            members.append(JSONMember("decision", .string("deadLetter")))
            members.append(JSONMember("reason", .string(error.reason.code)))
            members.append(JSONMember("error", .string(error.description)))
        }
        return .object(members)
    }

    private static func requestValue(_ request: ProviderRequest) -> JSONValue {
        var members = [JSONMember("method", .string(request.method)), JSONMember("path", .string(request.path))]
        if request.platform == .apns || request.platform == .apnsVoip {
            members.append(JSONMember("host", .string(request.sandbox ? "sandbox" : "production")))
        }
        members.append(JSONMember("headers", .object(request.headers.map { JSONMember($0.name, .string($0.value)) })))
        let body = (try? JSONParser.parse(request.body)) ?? .string(String(decoding: request.body, as: UTF8.self))
        members.append(JSONMember("body", body))
        members.append(JSONMember("bodySize", .number(String(request.body.count))))
        if request.platform == .web { members.append(JSONMember("encryption", webPushEncryption(request))) }
        return .object(members)
    }

    /// How the sender encrypts and signs a Web Push request: the body above is the plaintext; the key and salt are
    /// drawn per message, and the VAPID key is the sender's, so neither is shown.
    private static func webPushEncryption(_ request: ProviderRequest) -> JSONValue {
        let encrypted = 86 + request.body.count + 1 + 16
        return .object([
            JSONMember("contentEncoding", .string("aes128gcm (RFC 8291)")),
            JSONMember("recordSize", .number("4096")),
            JSONMember("paddingDelimiter", .string("0x02")),
            JSONMember("salt", .string("16 random bytes per message")),
            JSONMember("senderKey", .string("a fresh P-256 key per message")),
            JSONMember("encryptedSize", .number(String(encrypted))),
            JSONMember(
                "authorization",
                .string("vapid t=<ES256 JWT: aud the endpoint's origin, exp ≤ 24 h, sub>, k=<VAPID public key>")),
        ])
    }
}
