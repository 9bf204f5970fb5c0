internal import CRdKafka
import Dispatch
public import KafkaTypes
import Synchronization

/// An idempotent Kafka producer (`enable.idempotence=true`, `acks=all` by default) whose every record gets
/// a delivery report: awaited with `send(_:)`, or handed to a callback with `send(_:onDelivery:)`.
///
/// A record counts as written only when its report says so. Reports and errors are served by the
/// producer's own poll thread, which also runs the callbacks (keep them short).
public final class KafkaProducer: Sendable {
    /// Told about every error librdkafka reports outside a delivery report (broker down, fatal errors, …).
    public typealias ErrorHandler = @Sendable (KafkaError) -> Void

    private let client: RDKafkaClient
    private let context: ProducerContext
    private let poller: ProducerPoller
    private let callQueue = DispatchQueue(label: "kafka.producer.calls", attributes: .concurrent)
    /// Holds awaited batches while earlier ones wait for their reports (`ProduceGate`); `nil` when it queues each
    /// at once.
    private let gate: ProduceGate?

    /// The properties the producer was created with: `KafkaConfiguration.producerDefaults`, then `configuration`
    /// less its consumer-only properties.
    public let properties: [String: String]

    /// Creates a producer. librdkafka's log lines go to `logHandler`, or are dropped without one.
    ///
    /// `holdsWhileInFlight`: awaited records wait in the producer while earlier ones wait for their reports, and go
    /// to librdkafka together after the last of them (`ProduceGate`). For a producer fed many batches at once at a high
    /// rate (the pipeline's outputs), whose idempotent librdkafka producer would otherwise poll without sleeping while
    /// a ready batch waits for the request in flight; it adds up to a produce round trip to a record's wait (at most
    /// 100 ms and a poll, when a broker is slow to answer: `ProduceGate.releaseIfStuck`). Off, each batch is queued at
    /// once: the lowest latency for a few records at a time (the ingress).
    public init(
        configuration: KafkaConfiguration, errorHandler: ErrorHandler? = nil, logHandler: KafkaLogHandler? = nil,
        holdsWhileInFlight: Bool = false
    ) throws(KafkaError) {
        let given = configuration.properties.filter { !PropertyScope.consumerOnly.contains($0.key) }
        let context = ProducerContext(errorHandler: errorHandler, logHandler: logHandler)
        let client = try RDKafkaClient(
            .producer, defaults: KafkaConfiguration.producerDefaults, properties: given, callbacks: context.callbacks)
        let properties = KafkaConfiguration.producerDefaults.merging(given) { _, new in new }
        self.client = client
        self.context = context
        self.properties = properties
        let gate = holdsWhileInFlight ? ProduceGate() : nil
        self.poller = ProducerPoller(client: client, gate: gate)
        self.gate = gate
    }

    deinit {
        poller.requestStop()
    }

    /// Writes `record` and waits for its delivery report: where it was stored, or why it was not. A batch of one
    /// (`send(_:)` with an array), so it also waits while librdkafka's local queue is full instead of failing.
    public func send(_ record: KafkaProducerRecord) async throws(KafkaError) -> KafkaDeliveryReport {
        let reports = await send([record])
        guard let report = reports.first else {
            throw KafkaError(code: .state, message: "no delivery report", isRetriable: true)
        }
        return try report.get()
    }

    /// Writes `records` and waits for all their delivery reports, returned in the records' order: one wait for the
    /// batch, not a task per record. A record refused while librdkafka's local queue is full is queued again after
    /// a short wait (briefly, repeatedly); any other refusal is its report.
    public func send(_ records: [KafkaProducerRecord]) async -> [Result<KafkaDeliveryReport, KafkaError>] {
        var reports = [Result<KafkaDeliveryReport, KafkaError>](
            repeating: .failure(KafkaError(code: .state, message: "no report", isRetriable: true)),
            count: records.count)
        await deliver(records) { index, batch, slot in
            reports[index] = batch.report(at: slot, topic: records[index].topic)
        }
        return reports
    }

    /// Writes `records` as `send(_:)` does and returns the ones Kafka did not store, by their index in `records`,
    /// each with why; nothing is made for a record that was stored.
    public func produce(_ records: [KafkaProducerRecord]) async -> [(index: Int, error: KafkaError)] {
        var failures: [(index: Int, error: KafkaError)] = []
        await deliver(records) { index, batch, slot in
            if let error = batch.error(at: slot, topic: { records[index].topic }) { failures.append((index, error)) }
        }
        return failures
    }

    /// Queues `records` in one batch and waits for its reports, queues the records refused for a full queue again
    /// after a short wait, and so on; hands each record's index with the batch and slot of its final report to
    /// `take`. Once the task is cancelled, a record refused for a full queue is not queued again: its report is that
    /// refusal (a cancelled sleep would not wait, and the loop would spin until the queue drains).
    private func deliver(
        _ records: [KafkaProducerRecord], _ take: (_ index: Int, _ batch: DeliveryBatch, _ slot: Int) -> Void
    ) async {
        guard !records.isEmpty else { return }
        var pending: [Int]? = nil
        while true {
            let batch = await queueAndWait(records, pending)
            var again: [Int] = []
            for slot in 0..<batch.count {
                let index = pending?[slot] ?? slot
                if batch.wasRefusedForFullQueue(slot), !context.isClosed, !Task.isCancelled {
                    again.append(index)
                } else {
                    take(index, batch, slot)
                }
            }
            guard !again.isEmpty else { return }
            try? await Task.sleep(for: .milliseconds(5))
            pending = again
        }
    }

    /// Queues the records at `indices` (`nil`: all of them; at least one) as one batch, through the gate if the
    /// producer has one (`holdsWhileInFlight`), and waits for all their reports. The continuation is
    /// unchecked (no canary object per batch): `DeliveryBatch` resumes it exactly once, when the last of its records
    /// is reported — by librdkafka, which reports every queued record, or here for a refused one.
    private func queueAndWait(_ records: [KafkaProducerRecord], _ indices: [Int]?) async -> DeliveryBatch {
        await withUnsafeContinuation { continuation in
            let batch = DeliveryBatch(
                count: indices?.count ?? records.count, completion: .resume(continuation), gate: gate)
            batch.retainForReports()
            let queueAll: @Sendable () -> Void = {
                records.withUnsafeBufferPointer { records in
                    for slot in 0..<batch.count {
                        do throws(KafkaError) {
                            try self.queue(records[indices?[slot] ?? slot], opaque: batch.opaque(slot))
                        } catch {
                            batch.refuse(slot, error)
                        }
                    }
                }
            }
            if let gate { gate.enter(count: batch.count, queueAll) } else { queueAll() }
        }
    }

    /// Queues `record` and returns at once; `onDelivery` runs on the poll thread with its delivery report.
    /// Throws (and never calls `onDelivery`) when the record cannot be queued, e.g. `.queueFull` (retriable).
    public func send(
        _ record: KafkaProducerRecord,
        onDelivery: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void
    ) throws(KafkaError) {
        let batch = DeliveryBatch(count: 1, completion: .callback(topic: record.topic, onDelivery))
        batch.retainForReports()
        do {
            try queue(record, opaque: batch.opaque(0))
        } catch {
            batch.releaseForReports()
            throw error
        }
    }

    /// Queues `record` with `opaque` for its delivery report; throws when librdkafka refuses it.
    private func queue(_ record: KafkaProducerRecord, opaque: UnsafeMutableRawPointer) throws(KafkaError) {
        if let fatal = context.fatalError { throw fatal }
        if context.isClosed { throw KafkaError(code: .state, message: "the producer is closed", isRetriable: false) }
        let headers = Self.makeHeaders(of: record)
        let key = record.key
        // The topic's name through `withCString`: a small string's is copied on the stack, not into an array.
        let result = record.topic.withCString { topic in
            record.value.withUnsafeBytes { value in
                (key ?? []).withUnsafeBytes { keyBytes in
                    pw_rd_kafka_produce(
                        client.handle, topic, record.partition ?? pw_rd_kafka_partition_unassigned,
                        key == nil ? nil : keyBytes.baseAddress, keyBytes.count,
                        value.isEmpty ? nil : value.baseAddress, value.count, headers,
                        record.timestampMilliseconds ?? 0, opaque)
                }
            }
        }
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            if let headers { rd_kafka_headers_destroy(headers) }
            if result == RD_KAFKA_RESP_ERR__FATAL, let fatal = client.fatalError() { throw fatal }
            throw KafkaError(result, context: "queueing a record for \(record.topic)")
        }
    }

    /// Waits until every queued record has its delivery report, or `timeout` passes (`.timedOut`). Records the gate
    /// holds are among them: they are queued from the report of the last record before them, while it still counts.
    public func flush(timeout: Duration = .seconds(10)) async throws(KafkaError) {
        let client = client
        try await callQueue.blocking { () throws(KafkaError) in
            let result = rd_kafka_flush(client.handle, Int32(timeout.milliseconds))
            if let error = KafkaError.from(result, context: "flushing \(rd_kafka_outq_len(client.handle)) records") {
                throw error
            }
        }
    }

    /// The partition numbers of `topic`, from the cluster's metadata: an answer proves a broker reachable.
    public func partitions(of topic: String, timeout: Duration = .seconds(10)) async throws(KafkaError) -> [Int32] {
        let client = client
        return try await callQueue.blocking { () throws(KafkaError) in
            try Metadata.partitions(of: topic, handle: client.handle, timeout: timeout)
        }
    }

    /// The partition numbers of each of `topics` that exists, from one metadata request that names no topic, so that
    /// none is created (`Metadata.partitions(ofExisting:)`); a missing topic has no entry.
    public func partitions(ofExisting topics: [String], timeout: Duration = .seconds(10)) async throws(KafkaError)
        -> [String: [Int32]]
    {
        let client = client
        return try await callQueue.blocking { () throws(KafkaError) in
            try Metadata.partitions(ofExisting: topics, handle: client.handle, timeout: timeout)
        }
    }

    /// Records queued or in flight that have no delivery report yet.
    public var pendingCount: Int { Int(rd_kafka_outq_len(client.handle)) }

    /// How many times the records a holding producer (`holdsWhileInFlight`) held went to librdkafka before every
    /// earlier record was reported, 100 ms after the last went: a broker slow to answer. Always 0 for a producer that
    /// does not hold.
    public var earlyReleases: Int { gate?.earlyReleases ?? 0 }

    /// Raises a fabricated fatal error on the underlying handle (tests only; `@testable import Kafka`).
    func raiseFatalErrorForTesting(_ code: KafkaError.Code) {
        client.raiseFatalErrorForTesting(code)
    }

    /// The fatal error that made this producer unusable, if one was raised.
    public var fatalError: KafkaError? { context.fatalError }

    /// Flushes within `timeout`, then fails the reports of records still pending with `_PURGE_QUEUE` and
    /// stops; later sends fail with `.state`. Returns whether everything was delivered before the deadline.
    @discardableResult
    public func close(timeout: Duration = .seconds(10)) async -> Bool {
        let flushed = (try? await flush(timeout: timeout)) != nil
        context.close()
        let poller = poller
        try? await callQueue.blocking { () throws(KafkaError) in poller.stopAndWait() }
        return flushed
    }

    private static func makeHeaders(of record: KafkaProducerRecord) -> OpaquePointer? {
        guard !record.headers.isEmpty, let list = rd_kafka_headers_new(record.headers.count) else { return nil }
        // `withCString`, not a `String` passed as a C string: that makes an array of the name for every header.
        for header in record.headers {
            _ = header.name.withCString { name in
                guard let value = header.value else { return rd_kafka_header_add(list, name, -1, nil, 0) }
                return value.withUnsafeBytes { rd_kafka_header_add(list, name, -1, $0.baseAddress, $0.count) }
            }
        }
        return list
    }
}
