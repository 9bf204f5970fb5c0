import Kafka
public import KafkaTypes
public import PushPipeline

extension InvalidTokenTable {
    /// Applies records of the invalid-token topic (a record without a key is not one of its records).
    public func apply(_ records: [KafkaRecord]) {
        for record in records {
            guard let key = record.key else { continue }
            apply(key: String(decoding: key, as: UTF8.self), value: record.value)
        }
    }
}
