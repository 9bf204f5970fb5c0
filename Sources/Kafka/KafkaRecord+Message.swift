internal import CRdKafka
import KafkaTypes

extension KafkaRecord {
    /// Copies a consumed librdkafka message (without an error) into a record.
    init(message: UnsafeMutablePointer<rd_kafka_message_t>) {
        let raw = message.pointee
        let topic = String(topicOf: raw.rkt) ?? ""
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let timestamp = rd_kafka_message_timestamp(message, &timestampType)
        self.init(
            topic: topic,
            partition: raw.partition,
            offset: raw.offset,
            key: raw.key.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.key_len)) },
            value: raw.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.len)) } ?? [],
            headers: Self.headers(of: message),
            timestampMilliseconds: timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? nil : timestamp
        )
    }

    private static func headers(of message: UnsafeMutablePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var list: OpaquePointer?
        guard rd_kafka_message_headers(message, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        var headers: [KafkaHeader] = []
        var index = 0
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(list, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }
            headers.append(KafkaHeader(name: String(libraryText: name) ?? "", value: bytes))
            index += 1
        }
        return headers
    }
}
