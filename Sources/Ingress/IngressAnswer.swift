import Essentials

/// What the ingress answers, in IMKIT's shape: `{"RC":0,"RM":"OK","result":{}}` on success, otherwise
/// `{"RC":<status>,"RM":<reason>,"error":{"code","message","field"?}}`.
public struct IngressAnswer: Sendable, Equatable {
    public var status: Int
    /// Further header fields, e.g. `Retry-After`.
    public var headers: [String: String]
    /// The JSON body.
    public var body: [UInt8]

    /// `200 {"RC":0,"RM":"OK","result":{}}`: the record is in Kafka.
    public static let accepted = IngressAnswer(
        status: 200, headers: [:], body: Array(#"{"RC":0,"RM":"OK","result":{}}"#.utf8))

    /// An answer refusing the request with `status` and IMKIT's error object.
    public static func refusal(
        _ status: Int, code: String, message: String, field: String? = nil, headers: [String: String] = [:]
    ) -> IngressAnswer {
        var writer = JSONWriter(reservingCapacity: 160)
        writer.beginObject()
        writer.field("RC", status)
        writer.field("RM", reasonPhrase(status))
        writer.key("error")
        writer.beginObject()
        writer.field("code", code)
        writer.field("message", message)
        if let field { writer.field("field", field) }
        writer.endObject()
        writer.endObject()
        return IngressAnswer(status: status, headers: headers, body: writer.bytes)
    }

    /// `401`, `INVALID_API_KEY`.
    public static let unauthorized = refusal(
        401, code: "INVALID_API_KEY", message: "a valid key is required (IM-API-KEY, Authorization: Bearer or ?key=)")

    /// `503` with `Retry-After`: Kafka did not take the record; it is not written, send again.
    public static func unavailable(retryAfterSeconds: Int) -> IngressAnswer {
        refusal(
            503, code: "UNAVAILABLE", message: "the push was not stored; send it again",
            headers: ["Retry-After": String(retryAfterSeconds)])
    }

    /// `504`: the record went to Kafka but no acknowledgement came in time, so it may be written; sending it again
    /// may deliver the push twice.
    public static let unconfirmed = refusal(
        504, code: "UNCONFIRMED",
        message:
            "the push was sent to storage but not confirmed in time: it may be delivered; sending it again may deliver it twice"
    )

    /// The answer to a record Kafka did not acknowledge: `unconfirmed` when the broker may have stored it, else
    /// `unavailable`.
    public static func notAcknowledged(mayHaveBeenStored: Bool, retryAfterSeconds: Int) -> IngressAnswer {
        mayHaveBeenStored ? unconfirmed : unavailable(retryAfterSeconds: retryAfterSeconds)
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 413: "Payload Too Large"
        case 415: "Unsupported Media Type"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Error"
        }
    }
}
