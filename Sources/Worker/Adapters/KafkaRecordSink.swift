import Kafka
import PushPipeline

/// The record-sink port over an idempotent `KafkaProducer`.
public final class KafkaRecordSink: RecordSink {
    private let producer: KafkaProducer

    public init(producer: KafkaProducer) {
        self.producer = producer
    }

    /// Queues every record at once, then waits for all delivery reports (one wait for the batch). Records too large
    /// for Kafka are reported together as `OutputRejected`; any other failure is thrown as `ProduceFailed` with
    /// librdkafka's error name, fatal when the producer is unusable for good.
    public func produce(_ records: [OutputRecord]) async throws {
        guard !records.isEmpty else { return }
        let reports = await producer.send(
            records.map { record in
                KafkaProducerRecord(
                    topic: record.topic, key: record.key, value: record.value,
                    headers: record.headers.map { KafkaHeader(name: $0.name, value: $0.value) })
            })
        let failures = reports.enumerated().compactMap { index, report -> (Int, KafkaError)? in
            guard case .failure(let error) = report else { return nil }
            return (index, error)
        }
        if let fatal = producer.fatalError {
            throw ProduceFailed(reason: fatal.name, message: fatal.description, isFatal: true)
        }
        if let other = failures.first(where: { $0.1.code != .messageSizeTooLarge })?.1 {
            throw ProduceFailed(reason: other.name, message: other.description, isFatal: other.isFatal)
        }
        if let first = failures.first {
            throw OutputRejected(indices: failures.map(\.0), reason: first.1.description)
        }
    }

    public func flush(timeout: Duration) async {
        try? await producer.flush(timeout: timeout)
    }
}
