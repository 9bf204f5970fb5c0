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
        let failed = list.entries.filter { !Self.succeeded($0.error, change) }
        guard let first = failed.first else { return ([], nil) }
        return (failed.map(\.partition), KafkaError(first.error, context: "\(description) \(first.partition)"))
    }

    /// Whether a partition's answer to `change` is a success: a seek that does not wait is only started, which
    /// librdkafka 2.16 answers `_IN_PROGRESS` (2.0.2 leaves no error).
    private static func succeeded(_ error: rd_kafka_resp_err_t, _ change: FetchChange) -> Bool {
        guard case .seek = change else { return error == RD_KAFKA_RESP_ERR_NO_ERROR }
        return error == RD_KAFKA_RESP_ERR_NO_ERROR || error == RD_KAFKA_RESP_ERR__IN_PROGRESS
    }
}
