import Essentials
package import KafkaTypes
package import PushCore

/// The request of the `assigned` registry scope to unsubscribe a dead token, written by the pod whose send found it
/// dead to the fan-out topic, keyed by the token's client key and in that key's partition, so that the pod holding
/// the client's registry partition deletes the keys that still hold the token (`UnsubscribeRequestPlanner`). Told
/// from the fan-out records by its header `x-fanout-control: unsubscribe`; its value is
/// `{"appID", "clientId", "platform", "token", "messageId"}`. Pure.
package struct UnsubscribeRequest: Sendable, Equatable {
    /// The header that marks a fan-out topic's control record, and this one's value of it.
    package static let header = "x-fanout-control"
    package static let kind = "unsubscribe"

    package var client: ClientKey
    package var platform: Platform
    /// The raw token: written to the fan-out topic only, never logged.
    package var token: String
    /// The message whose send found the token dead.
    package var messageId: String

    package init(client: ClientKey, platform: Platform, token: String, messageId: String) {
        self.client = client
        self.platform = platform
        self.token = token
        self.messageId = messageId
    }

    /// Reads a request's value; `nil` when a field is missing or mistyped, the platform unknown or the token empty.
    package init?(json bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes), let appID = value["appID"]?.stringValue,
            let clientID = value["clientId"]?.stringValue, !clientID.isEmpty,
            let platform = value["platform"]?.stringValue.flatMap(Platform.init(rawValue:)),
            let token = value["token"]?.stringValue, !token.isEmpty
        else { return nil }
        self.init(
            client: ClientKey(appID: appID, clientID: clientID), platform: platform, token: token,
            messageId: value["messageId"]?.stringValue ?? "")
    }

    package func json() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256)
        writer.beginObject()
        writer.field("appID", client.appID)
        writer.field("clientId", client.clientID)
        writer.field("platform", platform.rawValue)
        writer.field("token", token)
        writer.field("messageId", messageId)
        writer.endObject()
        return writer.bytes
    }

    /// The record on `topic`, keyed by the client key, in the client's partition among `partitions`.
    package func record(topic: String, partitions: Int) -> KafkaProducerRecord {
        KafkaProducerRecord(
            topic: topic, partition: ClientPartitioner.partition(of: client, partitions: partitions),
            key: Array(client.description.utf8), value: json(),
            headers: [KafkaHeader(name: Self.header, text: Self.kind)])
    }
}
