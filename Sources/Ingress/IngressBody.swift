public import Foundation
public import PushCore

/// The checks of the ingress's bodies before they are written to Kafka.
///
/// It checks what the routing of a record needs: for v1 `messageType`, `room` and `toClient`; for v2 `messageType`,
/// `room` and `pushToClients`. A v1 or v2 body is then decoded by the workers' own `IMKITMessageDecoder`, a custom
/// push by their `CustomPushDecoder`, so the ingress refuses what a worker would dead-letter.
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
            try decodesAsACustomPush(root, now: now)
        }
    }

    /// Decodes a custom push with the decoder the workers use: a missing `clients` or `payload` is IMKIT's
    /// `MISSING_PARAMETER`, any other error names its field. Then refuses, as `CustomPushRequestBuilder` would
    /// skip or dead-letter it for every device, a push whose `expiry` has passed and one that cannot fit APNs' or
    /// FCM's limit.
    private static func decodesAsACustomPush(_ root: JSONValue, now: Date) throws(IMKITValidationError) {
        let push: CustomPush
        do {
            push = try CustomPushDecoder().decode(root)
        } catch {
            if ["clients", "payload"].contains(error.path), root[error.path] == nil || root[error.path] == .null {
                throw IMKITValidationError(
                    code: .missingParameter, field: error.path, message: "clients and payload are required")
            }
            throw IMKITValidationError(code: .invalidParameter, field: error.path, message: error.message)
        }
        if CustomPushRequestBuilder.hasExpired(push, at: now) {
            throw IMKITValidationError(
                code: .invalidParameter, field: "payload.expiry", message: "has passed: no device would get the push")
        }
        for platform in [Platform.apns, .fcm] {
            if let error = CustomPushRequestBuilder.tooLarge(push, on: platform) {
                throw IMKITValidationError(code: .invalidParameter, field: error.path, message: error.message)
            }
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

    private static func optionalString(_ root: JSONValue, _ name: String) throws(IMKITValidationError) {
        try optional(root, name, "a string") { $0.stringValue != nil }
    }

    private static func optional(
        _ root: JSONValue, _ name: String, _ expected: String, _ isValid: (JSONValue) -> Bool
    ) throws(IMKITValidationError) {
        guard let value = root[name], value != .null, !isValid(value) else { return }
        throw IMKITValidationError(code: .invalidParameter, field: name, message: "must be \(expected)")
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
