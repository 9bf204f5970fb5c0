import Foundation
import PushCore

/// The checks of the ingress's bodies before they are written to Kafka.
///
/// It checks what the routing of a record needs and the types of the fields a push uses: for v1 `messageType`,
/// `room` and `toClient`; for v2 `messageType`, `room` and `pushToClients`; for a custom push `clients` and
/// `payload`, and the types of the payload's fields. A v1 or v2 body is then decoded by the workers' own
/// `IMKITMessageDecoder`, so the ingress refuses what a worker would dead-letter.
public enum IngressBody {
    /// Which body a route takes.
    public enum Kind: Sendable, Equatable {
        case callbackV1, callbackV2, customPush
    }

    /// Checks the parsed body `root` as a body of `kind`; `now` bounds an IMKIT message's time as a worker would.
    public static func validate(_ root: JSONValue, as kind: Kind, now: Date) throws(IMKITValidationError) {
        guard case .object = root else {
            throw IMKITValidationError(code: .invalidParameter, field: "", message: "the body must be a JSON object")
        }
        switch kind {
        case .callbackV1:
            try callbackFields(root)
            try requiredString(root, "toClient")
            try optional(root, "badge", "a number") { if case .number = $0 { true } else { false } }
            try optionalString(root, "alert")
            try decodesAsTheWorkersDo(root, now: now)
        case .callbackV2:
            try callbackFields(root)
            try clientList(root, "pushToClients")
            try optionalString(root, "roomName")
            try decodesAsTheWorkersDo(root, now: now)
        case .customPush:
            guard let payload = root["payload"], root["clients"] != nil, payload != .null else {
                throw IMKITValidationError(
                    code: .missingParameter, field: root["clients"] == nil ? "clients" : "payload",
                    message: "clients and payload are required")
            }
            try clientList(root, "clients")
            guard case .object = payload else {
                throw IMKITValidationError(code: .invalidParameter, field: "payload", message: "must be an object")
            }
            for name in ["type", "sound", "topic", "title", "body", "icon", "collapseKey"] {
                try optionalString(payload, name, path: "payload.")
            }
            for name in ["expiry", "badge"] {
                try optional(payload, name, "an integer", path: "payload.") { isInteger($0) }
            }
            try optional(payload, "alert", "a string or an object with loc-key", path: "payload.") { alert in
                switch alert {
                case .string: true
                case .object: alert["loc-key"]?.stringValue != nil
                default: false
                }
            }
            try optionalString(root, "id")
            try optionalString(root, "appID")
        }
    }

    /// Decodes an IMKIT message with the decoder the workers use; its error names the field.
    private static func decodesAsTheWorkersDo(_ root: JSONValue, now: Date) throws(IMKITValidationError) {
        do {
            _ = try IMKITMessageDecoder().decode(root, now: now)
        } catch {
            throw IMKITValidationError(code: .invalidParameter, field: error.path, message: error.message)
        }
    }

    private static func callbackFields(_ root: JSONValue) throws(IMKITValidationError) {
        try requiredString(root, "messageType")
        try requiredString(root, "room")
        try optionalString(root, "appID")
        try optional(root, "sender", "an object") { if case .object = $0 { true } else { false } }
    }

    private static func clientList(_ root: JSONValue, _ name: String) throws(IMKITValidationError) {
        guard let value = root[name] else {
            throw IMKITValidationError(code: .missingParameter, field: name, message: "is required")
        }
        guard case .array(let clients) = value, !clients.isEmpty,
            clients.allSatisfy({ !($0.stringValue ?? "").isEmpty })
        else {
            throw IMKITValidationError(
                code: .invalidParameter, field: name, message: "must be a non-empty array of client IDs")
        }
        guard clients.count <= EventLimits().maximumRecipients else {
            throw IMKITValidationError(
                code: .invalidParameter, field: name,
                message: "lists more than \(EventLimits().maximumRecipients) clients")
        }
    }

    private static func requiredString(_ root: JSONValue, _ name: String) throws(IMKITValidationError) {
        guard let value = root[name] else {
            throw IMKITValidationError(code: .missingParameter, field: name, message: "is required")
        }
        guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= EventLimits.maximumIDLength else {
            throw IMKITValidationError(
                code: .invalidParameter, field: name,
                message: "must be a non-empty string of at most \(EventLimits.maximumIDLength) bytes")
        }
    }

    private static func optionalString(_ root: JSONValue, _ name: String, path: String = "")
        throws(IMKITValidationError)
    {
        try optional(root, name, "a string", path: path) { $0.stringValue != nil }
    }

    private static func optional(
        _ root: JSONValue, _ name: String, _ expected: String, path: String = "", _ isValid: (JSONValue) -> Bool
    ) throws(IMKITValidationError) {
        guard let value = root[name], value != .null, !isValid(value) else { return }
        throw IMKITValidationError(code: .invalidParameter, field: path + name, message: "must be \(expected)")
    }

    private static func isInteger(_ value: JSONValue) -> Bool {
        guard case .number(let literal) = value else { return false }
        return Int64(literal) != nil
    }
}

/// Why a body was refused: IMKIT's error code, the field, and what is wrong (never the field's value).
public struct IMKITValidationError: Error, Sendable, Equatable {
    /// IMKIT's error codes for bad input.
    public enum Code: String, Sendable {
        case missingParameter = "MISSING_PARAMETER"
        case invalidParameter = "INVALID_PARAMETER"
    }
    public var code: Code
    /// The field's path, e.g. `payload.badge`; empty for the body as a whole.
    public var field: String
    public var message: String

    public init(code: Code, field: String, message: String) {
        self.code = code
        self.field = field
        self.message = message
    }
}
