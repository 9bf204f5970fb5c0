import Foundation

/// Chat events (`schemas/chat-message.schema.json`) for tests that write them into Kafka.
public enum ChatEvents {
    /// A device of a recipient.
    public enum Device: Sendable {
        case apns(token: String)
        case fcm(token: String)

        var json: String {
            switch self {
            case .apns(let token): #"{"platform": "apns", "token": "\#(token)"}"#
            case .fcm(let token): #"{"platform": "fcm", "token": "\#(token)"}"#
            }
        }
    }

    /// Text message `m-<index>` ("Hello <index>" from u-1 Alice, made now) in `room` to u-2 (badge 1) on `devices`.
    public static func text(_ index: Int, room: String, devices: [Device]) -> String {
        """
        {"id": "m-\(index)", "type": "text", "room": {"id": "\(room)", "name": "Team"},
         "sender": {"id": "u-1", "nickname": "Alice"}, "content": "Hello \(index)",
         "createdAt": \(Int64(Date().timeIntervalSince1970 * 1000)),
         "recipients": [{"userId": "u-2", "badge": 1, "devices": [\(devices.map(\.json).joined(separator: ", "))]}]}
        """
    }
}
