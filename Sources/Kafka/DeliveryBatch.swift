internal import CRdKafka
import Synchronization

/// The delivery reports of a batch of queued records, in one allocation: a slot per record, whose address
/// librdkafka carries as that record's message opaque. The poll thread fills a record's slot from its report (the
/// queueing caller fills it for a record librdkafka refused); the last slot filled completes the batch, once: it
/// resumes the task waiting for the batch, or runs the callback of a record queued alone.
///
/// `@unchecked Sendable`: each slot is written once, by one thread, before `remaining` counts it, and read only
/// after `remaining` reached zero (both atomic with acquiring-and-releasing order), by the completion.
final class DeliveryBatch: @unchecked Sendable {
    /// One record's report.
    private struct Slot {
        /// The batch, unretained: librdkafka's references are the one retain `retainForReports()` takes.
        let batch: Unmanaged<DeliveryBatch>
        /// librdkafka's error code for the record (`RD_KAFKA_RESP_ERR_NO_ERROR`: stored), where it was stored.
        var code = RD_KAFKA_RESP_ERR_NO_ERROR
        /// Whether the broker may have stored a record whose report is an error.
        var mayHaveBeenStored = false
        var partition: Int32 = -1
        var offset: Int64 = -1
        /// Why the record could not be queued at all.
        var refused: KafkaError?
    }

    /// What the last report does.
    enum Completion {
        /// Resumes the task waiting for the batch, with the batch.
        case resume(UnsafeContinuation<DeliveryBatch, Never>)
        /// Runs the callback of a batch of one record on `topic` with its report.
        case callback(topic: String, @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void)
    }

    /// The number of records (and slots); at least one.
    let count: Int
    private let slots: UnsafeMutablePointer<Slot>
    private let remaining: Atomic<Int>
    private let completion: Completion
    /// The gate the batch's records went through, told of each report and refusal; `nil` for a batch that did not.
    let gate: ProduceGate?

    init(count: Int, completion: Completion, gate: ProduceGate? = nil) {
        self.count = count
        self.gate = gate
        slots = .allocate(capacity: count)
        remaining = Atomic(count)
        self.completion = completion
        slots.initialize(repeating: Slot(batch: Unmanaged.passUnretained(self)), count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// The message opaque of the record at `index`.
    func opaque(_ index: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(slots + index)
    }

    /// Keeps the batch alive for librdkafka until its last report: once, before its first record is queued.
    func retainForReports() {
        _ = Unmanaged.passRetained(self)
    }

    /// Gives up `retainForReports()`'s retain: at the last report, or when no record of the batch could be queued.
    func releaseForReports() {
        Unmanaged.passUnretained(self).release()
    }

    /// The record at `index` could not be queued: `error` is its report.
    func refuse(_ index: Int, _ error: KafkaError) {
        slots[index].refused = error
        filled()
    }

    /// The report of the record at `index`, on `topic`; read once the batch completed.
    func report(at index: Int, topic: String) -> Result<KafkaDeliveryReport, KafkaError> {
        if let error = error(at: index, topic: { topic }) { return .failure(error) }
        return .success(
            KafkaDeliveryReport(topic: topic, partition: slots[index].partition, offset: slots[index].offset))
    }

    /// Why the record at `index` (on the topic `topic` gives) was not stored, or `nil` when it was; read once the
    /// batch completed.
    func error(at index: Int, topic: () -> String) -> KafkaError? {
        if let refused = slots[index].refused { return refused }
        let code = slots[index].code
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        var error = KafkaError(code, context: "delivering a record to \(topic())")
        error.mayHaveBeenStored = slots[index].mayHaveBeenStored
        return error
    }

    /// Whether the record at `index` was refused because librdkafka's local queue was full; read once the batch
    /// completed.
    func wasRefusedForFullQueue(_ index: Int) -> Bool {
        slots[index].refused?.code == .queueFull
    }

    /// One record's report is in: the last one completes the batch. The gate hears of each, after the batch is done
    /// with it (the batch may be gone by then: the gate is read first).
    private func filled() {
        let gate = gate
        defer { gate?.reported() }
        guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        switch completion {
        case .resume(let continuation): continuation.resume(returning: self)
        case .callback(let topic, let callback): callback(report(at: 0, topic: topic))
        }
        releaseForReports()
    }

    /// The C delivery-report callback: fills the slot the message's opaque points at.
    static let callback:
        @convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void = {
            _, message, _ in
            guard let message, let opaque = message.pointee._private else { return }
            let slot = opaque.assumingMemoryBound(to: Slot.self)
            let batch = slot.pointee.batch.takeUnretainedValue()
            slot.pointee.code = message.pointee.err
            slot.pointee.mayHaveBeenStored =
                rd_kafka_message_status(message) == RD_KAFKA_MSG_STATUS_POSSIBLY_PERSISTED
            slot.pointee.partition = message.pointee.partition
            slot.pointee.offset = message.pointee.offset
            batch.filled()
        }
}
