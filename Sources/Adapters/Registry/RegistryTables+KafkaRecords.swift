import DeviceRegistry
import KafkaTypes
import Observability
import PushCore

extension RegistryTables {
    /// Applies a batch of `topic`'s records as Kafka handed them over (the topic named `name`), logging each record
    /// ignored, or trimmed (a settings record with too many muted rooms, applied with the first ones), with where it
    /// was read and why: never its value, which may hold a token.
    func apply(_ records: [KafkaRecord], of topic: Topic, named name: String, logger: Logger) throws(RegistryStoreError)
    {
        let ignored = try apply(
            records.map { RegistryRecord(key: $0.key, value: $0.value, partition: $0.partition, offset: $0.offset) },
            of: topic, named: name)
        for (record, error) in ignored {
            var metadata: Logger.Metadata = [
                "kafka.topic": .string(name), "registry.reason": .string(error.reason.rawValue),
                "error": .string(error.message),
            ]
            if let partition = record.partition { metadata["kafka.partition"] = .init(Int(partition)) }
            if let offset = record.offset { metadata["kafka.offset"] = .init(Int(offset)) }
            let trimmed = error.reason == .tooManyMutedRooms
            logger.warning(trimmed ? "registry record trimmed" : "registry record ignored", metadata: metadata)
        }
    }
}
