import Foundation

/// A JSON report of an event's decisions, one entry per device with the full request when sent: what
/// `push-worker render` prints and what the golden files hold.
public enum DecisionReport {
    /// The report as indented JSON.
    public static func json(event: ChatMessageEvent, decisions: [DeviceDecision], now: Date) -> String {
        var json = JSONWriter(reservingCapacity: 4096)
        json.beginObject()
        json.field("messageId", event.id)
        json.field("type", event.type)
        json.field("plannedAt", ISO8601DateFormatter().string(from: now))
        json.key("devices")
        json.beginArray()
        for decision in decisions { write(decision, into: &json) }
        json.endArray()
        json.endObject()
        return JSONPrettyPrinter.format(json.bytes)
    }

    private static func write(_ decision: DeviceDecision, into json: inout JSONWriter) {
        json.beginObject()
        json.field("device", decision.address.description)
        json.field("userId", decision.userID)
        if let device = decision.device {
            json.field("platform", device.platform.rawValue)
            json.field("tokenHash", SHA256.tokenHash(device.token))
        }
        switch decision.outcome {
        case .send(let request):
            json.field("decision", "send")
            if let locale = decision.locale { json.field("locale", locale.description) }
            json.key("request")
            json.beginObject()
            json.field("method", request.method)
            json.field("path", request.path)
            if request.platform != .fcm { json.field("host", request.sandbox ? "sandbox" : "production") }
            json.key("headers")
            json.beginObject()
            for header in request.headers { json.field(header.name, header.value) }
            json.endObject()
            json.field(
                "body", (try? JSONParser.parse(request.body)) ?? .string(String(decoding: request.body, as: UTF8.self)))
            json.field("bodySize", request.body.count)
            json.endObject()
        case .skipped(let reason):
            json.field("decision", "skipped")
            json.field("reason", reason.code)
        case .expired:
            json.field("decision", "expired")
        case .deadLetter(let error):
            json.field("decision", "deadLetter")
            json.field("reason", error.reason.code)
            json.field("error", error.description)
        }
        json.endObject()
    }
}
