import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import TestSupport
import Testing

/// The per-room order check the end-to-end tests rely on, on hand-made input and requests.
struct RoomOrderTests {
    /// Input records: messages m-0...m-3, rooms a and b alternating, in one partition.
    static let input = (0..<4).map { index in
        KafkaRecord(
            topic: "chat.messages", partition: 0, offset: Int64(index), key: nil,
            value: Array(#"{"id": "m-\#(index)", "room": {"id": "\#(index % 2 == 0 ? "a" : "b")"}}"#.utf8))
    }

    /// Recorded requests for `messages`, in that order; APNs at even positions, FCM at odd ones.
    static func requests(_ messages: [String]) throws -> [RecordedRequest] {
        let recorded: [[String: Any]] = messages.enumerated().map { seq, id in
            let apns = seq % 2 == 0
            return [
                "seq": seq + 1, "connection": 1, "stream": 2 * seq + 1, "method": "POST",
                "path": apns ? "/3/device/\(id)" : "/v1/projects/p/messages:send", "headers": [String: String](),
                "body": apns ? #"{"aps": {}, "mid": "\#(id)"}"# : #"{"message": {"data": {"mid": "\#(id)"}}}"#,
                "concurrent": 1, "status": 200, "client_certificate": false,
            ]
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode([RecordedRequest].self, from: JSONSerialization.data(withJSONObject: recorded))
    }

    @Test func roomsInterleavedInEventOrderPass() throws {
        let order = RoomOrder(Self.input)
        #expect(order.rooms == 2)
        #expect(order.violations(in: try Self.requests(["m-1", "m-0", "m-3", "m-2"])).isEmpty)
    }

    @Test func aLaterMessageBeforeAnEarlierOneOfItsRoomIsReported() throws {
        let violations = RoomOrder(Self.input).violations(in: try Self.requests(["m-2", "m-1", "m-0", "m-3"]))
        #expect(violations == ["a: m-0 after m-2"])
    }

    @Test func aRetryOfAnEarlierMessageIsNotAFirstAttempt() throws {
        // m-0's APNs request again after m-2's: the same path and body, so a retry.
        #expect(RoomOrder(Self.input).violations(in: try Self.requests(["m-0", "m-1", "m-2", "m-3", "m-0"])).isEmpty)
    }

    @Test func inStrictOrderEveryRetryOfAMessageComesBeforeItsRoomsNextMessage() throws {
        let requests = try Self.requests(["m-0", "m-1", "m-0", "m-2", "m-3", "m-1"])
        #expect(
            RoomOrder(Self.input).strictViolations(in: requests, handedOff: []) == ["b: m-3 before m-1 was settled"])
    }

    @Test func aMessageHandedToTheRetryTopicMayBeRetriedAfterItsRoomsNextMessage() throws {
        let requests = try Self.requests(["m-0", "m-2", "m-0", "m-1", "m-3"])
        let order = RoomOrder(Self.input)
        #expect(order.strictViolations(in: requests, handedOff: []) == ["a: m-2 before m-0 was settled"])
        #expect(order.strictViolations(in: requests, handedOff: ["m-0"]).isEmpty)
    }
}
