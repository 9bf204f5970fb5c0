import DeviceRegistry
import KafkaTypes
import PushCore

extension RegistryTables {
    /// Applies a batch of `topic`'s records as Kafka handed them over (the topic named `name`); the records ignored,
    /// or trimmed (a settings record with too many muted rooms, applied with the first ones), go to `log`.
    func apply(_ records: [KafkaRecord], of topic: Topic, named name: String, log: RegistryRecordLog)
        throws(RegistryStoreError)
    {
        let ignored = try apply(
            records.map { RegistryRecord(key: $0.key, value: $0.value, partition: $0.partition, offset: $0.offset) },
            of: topic, named: name)
        log.log(ignored, topic: name)
    }
}
