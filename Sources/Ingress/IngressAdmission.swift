import Essentials
public import Foundation
import PushCore

/// The ingress's request handling, without I/O: route, client allowlist, key, size, JSON and the body's fields,
/// in that order, to either a refusal in IMKIT's error shape or the record to write.
///
/// A request's app is its key's app: a body naming another `appID` (compared as bytes) is refused, and a body naming
/// none (absent, `null` or empty) gets the key's app written in, so no key writes for another app, the default app
/// included.
///
/// Records: an IMKIT callback body goes to Kafka unchanged but for that `appID`, keyed by its `room`; a custom push
/// is keyed by its `id`, which is generated when absent and written into the record, so that a platform producing
/// custom pushes directly and the ingress write the same record kind.
public struct IngressAdmission: Sendable {
    public let keys: IngressKeys
    public let allowlist: ClientAllowlist?
    /// The longest body taken; a longer one is refused with 413.
    public let maximumBodyBytes: Int

    public init(keys: IngressKeys, allowlist: ClientAllowlist?, maximumBodyBytes: Int) {
        self.keys = keys
        self.allowlist = allowlist
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// The decision for one request. `headers` have lower-cased names; `clientAddress` is 4 or 16 bytes (empty
    /// when unknown); `makeID` names a custom push that has no `id`; `now` bounds an IMKIT message's time.
    public func decide(
        method: String, path: String, headers: [String: String], query: [String: String], body: [UInt8],
        bodyTooLarge: Bool, clientAddress: [UInt8], now: Date, makeID: () -> String
    ) -> IngressDecision {
        guard let route = IngressRoute(rawValue: path) else {
            return .answer(.refusal(404, code: "NOT_FOUND", message: "no such route"))
        }
        guard method == "POST" else {
            return .answer(
                .refusal(405, code: "METHOD_NOT_ALLOWED", message: "only POST", headers: ["Allow": "POST"]))
        }
        if let allowlist, !allowlist.allows(clientAddress) {
            return .answer(.refusal(403, code: "FORBIDDEN", message: "the client address is not allowed"))
        }
        guard let presented = Self.presentedKey(headers: headers, query: query),
            let app = keys.app(presenting: presented)
        else { return .answer(.unauthorized) }
        guard !bodyTooLarge, body.count <= maximumBodyBytes else {
            return .answer(
                .refusal(
                    413, code: "PAYLOAD_TOO_LARGE", message: "the body is over the limit of \(maximumBodyBytes) bytes"))
        }
        let root: JSONValue
        do {
            root = try JSONParser.parse(body)
        } catch {
            return .answer(.refusal(400, code: "INVALID_JSON", message: error.description))
        }
        do throws(IMKITValidationError) {
            try IngressBody.validate(root, as: route.kind, now: now)
        } catch {
            return .answer(
                .refusal(
                    400, code: error.code.rawValue, message: error.message,
                    field: error.field.isEmpty ? nil : error.field))
        }
        let named = Self.namedApp(root)
        if let named, ByteID(named) != ByteID(app) {
            return .answer(
                .refusal(403, code: "APP_MISMATCH", message: "the key is not valid for this appID", field: "appID"))
        }
        switch route {
        case .imkitV1, .imkitV2:
            let value = named == nil && !app.isEmpty ? JSONWriter.encode(Self.withApp(root, app)) : body
            return .write(key: Array((root["room"]?.stringValue ?? "").utf8), value: value)
        case .pushToClients:
            return Self.customPushRecord(named == nil ? Self.withApp(root, app) : root, makeID: makeID)
        }
    }

    /// The `appID` a body names: `nil` when it is absent, `null` or empty (the checks before made it a string).
    static func namedApp(_ root: JSONValue) -> String? {
        guard let app = root["appID"]?.stringValue, !app.isEmpty else { return nil }
        return app
    }

    /// The object `root` with `appID` set to `app`, or without `appID` for the default app (the empty string).
    static func withApp(_ root: JSONValue, _ app: String) -> JSONValue {
        guard case .object(var members) = root else { return root }
        members.removeAll { $0.key == "appID" }
        if !app.isEmpty { members.append(JSONMember("appID", .string(app))) }
        return .object(members)
    }

    /// The key as `IM-API-KEY`, `Authorization: Bearer …` or the `key` query parameter, in that order.
    static func presentedKey(headers: [String: String], query: [String: String]) -> String? {
        if let key = headers["im-api-key"], !key.isEmpty { return key }
        if let authorization = headers["authorization"] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1].trimmingSpaces) }
        }
        if let key = query["key"], !key.isEmpty { return key }
        return nil
    }

    /// A custom push as its record: keyed by its `id`, with `id` filled in when absent.
    static func customPushRecord(_ root: JSONValue, makeID: () -> String) -> IngressDecision {
        guard case .object(var members) = root else {
            return .answer(.refusal(400, code: "INVALID_PARAMETER", message: "the body must be a JSON object"))
        }
        let id: String
        if let given = root["id"]?.stringValue, !given.isEmpty {
            id = given
        } else {
            id = makeID()
            members.removeAll { $0.key == "id" }
            members.append(JSONMember("id", .string(id)))
        }
        return .write(key: Array(id.utf8), value: JSONWriter.encode(.object(members)))
    }
}

extension IngressRoute {
    /// The body the route takes.
    var kind: IngressBody.Kind {
        switch self {
        case .imkitV1: .callbackV1
        case .imkitV2: .callbackV2
        case .pushToClients: .customPush
        }
    }
}
