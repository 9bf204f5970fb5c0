/// Where receipts, retry records and dead-letter records go: an idempotent Kafka producer.
public protocol RecordSink: Sendable {
    /// Produces `records` and returns once Kafka acknowledged every one of them; throws when any
    /// was not acknowledged (the caller produces them again).
    func produce(_ records: [OutputRecord]) async throws
    /// Waits up to `timeout` for every produced record to be acknowledged.
    func flush(timeout: Duration) async
}
