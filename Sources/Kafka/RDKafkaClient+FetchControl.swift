internal import CRdKafka
import KafkaTypes

extension RDKafkaClient: FetchControl {
    /// Pauses or resumes (librdkafka waits for its fetchers to take the change) or seeks (without waiting).
    func apply(_ change: FetchChange) -> (failed: [TopicPartition], error: KafkaError?) {
        let list: RDKafkaTopicPartitionList
        let description: String
        let result: rd_kafka_resp_err_t
        switch change {
        case .pause(let partitions):
            (list, description) = (RDKafkaTopicPartitionList(partitions), "pausing")
            result = rd_kafka_pause_partitions(handle, list.pointer)
        case .resume(let partitions):
            (list, description) = (RDKafkaTopicPartitionList(partitions), "resuming")
            result = rd_kafka_resume_partitions(handle, list.pointer)
        case .seek(let partition, let offset):
            (list, description) = (RDKafkaTopicPartitionList([partition: offset]), "seeking")
            if let error = rd_kafka_seek_partitions(handle, list.pointer, 0) {
                return (change.partitions, KafkaError(taking: error))
            }
            result = RD_KAFKA_RESP_ERR_NO_ERROR
        }
        if let error = KafkaError.from(result, context: description) { return (change.partitions, error) }
        let failed = list.entries.filter { $0.error != RD_KAFKA_RESP_ERR_NO_ERROR }.map(\.partition)
        return (failed, list.firstError(context: description))
    }
}
