public import KafkaTypes
import PushCore
public import PushPipeline

/// The record sink of a replay: every retry and dead-letter record it writes carries the run's
/// `x-replay-run-id`; what is dead-lettered as `decode_error` (a record that is not an event, a device whose
/// token is not a token) is not dead-lettered again (the live run did that already), only counted; and a
/// dry run writes nothing at all.
public struct ReplaySink: RecordSink {
    let inner: any RecordSink
    let runId: String
    let deadLetterTopic: String
    let dryRun: Bool
    /// Told about every dead letter left out because its record was not an event.
    let onUndecodable: @Sendable () -> Void

    public init(
        inner: any RecordSink, runId: String, deadLetterTopic: String, dryRun: Bool,
        onUndecodable: @escaping @Sendable () -> Void
    ) {
        self.inner = inner
        self.runId = runId
        self.deadLetterTopic = deadLetterTopic
        self.dryRun = dryRun
        self.onUndecodable = onUndecodable
    }

    public func produce(_ records: [KafkaProducerRecord]) async throws {
        var kept: [KafkaProducerRecord] = []
        kept.reserveCapacity(records.count)
        for var record in records {
            if record.topic == deadLetterTopic,
                record.headers.text(FailureHeaders.reason) == DeadLetterReason.decodeError.code
            {
                onUndecodable()
                continue
            }
            if record.headers.contains(where: { $0.name == FailureHeaders.reason }) {
                record.headers.removeAll { $0.name == FailureHeaders.replayRunId }
                record.headers.append(KafkaHeader(name: FailureHeaders.replayRunId, text: runId))
            }
            kept.append(record)
        }
        guard !dryRun, !kept.isEmpty else { return }
        try await inner.produce(kept)
    }

    public func flush(timeout: Duration) async {
        guard !dryRun else { return }
        await inner.flush(timeout: timeout)
    }
}
