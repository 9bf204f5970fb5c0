internal import CRdKafka

/// What to do with one record's delivery report; travels through librdkafka as the message opaque.
final class DeliveryCompletion: Sendable {
    let complete: @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void

    init(_ complete: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void) {
        self.complete = complete
    }

    /// The C delivery-report callback: takes back the retained completion and runs it.
    static let callback:
        @convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void = {
            _, message, _ in
            guard let message, let opaque = message.pointee._private else { return }
            let completion = Unmanaged<DeliveryCompletion>.fromOpaque(opaque).takeRetainedValue()
            let raw = message.pointee
            let topic = raw.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
            guard raw.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                completion.complete(.failure(KafkaError(raw.err, context: "delivering a record to \(topic)")))
                return
            }
            completion.complete(
                .success(KafkaDeliveryReport(topic: topic, partition: raw.partition, offset: raw.offset)))
        }
}
