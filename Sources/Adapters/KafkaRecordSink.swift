public import Kafka
public import KafkaTypes
public import PushPipeline

/// The record-sink port over an idempotent `KafkaProducer`.
public final class KafkaRecordSink: RecordSink {
    private let producer: KafkaProducer

    public init(producer: KafkaProducer) {
        self.producer = producer
    }

    /// Queues every record at once, as it is, then waits for all delivery reports (one wait for the batch). Records
    /// too large for Kafka are reported together as `OutputRejected`; any other failure is thrown as `ProduceFailed`
    /// with librdkafka's error name, fatal when the producer is unusable for good.
    public func produce(_ records: [KafkaProducerRecord]) async throws {
        guard !records.isEmpty else { return }
        let failures = await producer.produce(records)
        if let fatal = producer.fatalError {
            throw ProduceFailed(reason: fatal.name, message: fatal.description, isFatal: true)
        }
        if let other = failures.first(where: { $0.error.code != .messageSizeTooLarge })?.error {
            throw ProduceFailed(reason: other.name, message: other.description, isFatal: other.isFatal)
        }
        if let first = failures.first {
            throw OutputRejected(indices: failures.map(\.index), reason: first.error.description)
        }
    }

    public func flush(timeout: Duration) async {
        try? await producer.flush(timeout: timeout)
    }
}
