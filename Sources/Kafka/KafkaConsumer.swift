internal import CRdKafka
import Dispatch
public import KafkaTypes
import Synchronization

/// A Kafka consumer for at-least-once processing: group subscription or explicit assignment, batches,
/// offsets stored by the application when a record is done, commits, pause/resume and bounded close.
///
/// All polling, rebalancing, pausing, resuming, seeking and closing happens on the consumer's own serial poll queue;
/// rebalances come back from `pollWithRebalances` as values (`RebalanceEvent`). Other blocking calls (commits,
/// finishing a revoke, queries) run on a second queue. No librdkafka call runs under the lock the callbacks take.
public final class KafkaConsumer: Sendable {
    /// Told about every error librdkafka reports outside a call's result (broker down, fatal errors, …).
    public typealias ErrorHandler = @Sendable (KafkaError) -> Void

    private let client: RDKafkaClient
    private let context: ConsumerContext
    /// Applies pauses, resumes and seeks: the client, or a fake in tests.
    private let fetchControl: any FetchControl
    private let pollQueue = DispatchQueue(label: "kafka.consumer.poll")
    private let callQueue = DispatchQueue(label: "kafka.consumer.calls", attributes: .concurrent)

    /// The properties the consumer was created with: `KafkaConfiguration.consumerDefaults`, then
    /// `configuration` less its producer-only properties, then `enable.auto.offset.store=false`.
    public let properties: [String: String]

    /// Creates a consumer; nothing is fetched until `subscribe` or `assign`. librdkafka's log lines go to
    /// `logHandler`, or are dropped without one.
    public convenience init(
        configuration: KafkaConfiguration, errorHandler: ErrorHandler? = nil, logHandler: KafkaLogHandler? = nil
    ) throws(KafkaError) {
        try self.init(
            configuration: configuration, errorHandler: errorHandler, logHandler: logHandler, fetchControl: nil)
    }

    /// A consumer whose pauses, resumes and seeks go to `fetchControl` (tests), or to its handle when `nil`, and
    /// whose defaults are `defaults` (tests: librdkafka refuses `partition.assignment.strategy`, one of
    /// `KafkaConfiguration.consumerDefaults`, with `group.protocol=consumer`).
    init(
        configuration: KafkaConfiguration, errorHandler: ErrorHandler?, logHandler: KafkaLogHandler?,
        fetchControl: (any FetchControl)?, defaults: [String: String] = KafkaConfiguration.consumerDefaults
    ) throws(KafkaError) {
        var given = configuration.properties.filter { !PropertyScope.producerOnly.contains($0.key) }
        given["enable.auto.offset.store"] = "false"
        let context = ConsumerContext(errorHandler: errorHandler, logHandler: logHandler)
        let client = try RDKafkaClient(.consumer, defaults: defaults, properties: given, callbacks: context.callbacks)
        let properties = defaults.merging(given) { _, new in new }
        // Serve errors, statistics and rebalances from the consumer queue, i.e. in `poll`.
        if let error = KafkaError.from(rd_kafka_poll_set_consumer(client.handle), context: "forwarding the main queue")
        {
            throw error
        }
        self.client = client
        self.context = context
        self.fetchControl = fetchControl ?? client
        self.properties = properties
    }

    deinit {
        // rd_kafka_destroy blocks: let the last references go on the poll queue, not on the caller's thread.
        pollQueue.async { [client] in withExtendedLifetime(client) {} }
    }

    /// Joins the consumer group and subscribes to `topics`; partitions arrive through rebalances. With
    /// `.acknowledged` revokes, `pollWithRebalances` hands every rebalance out, and revoked partitions stay owned
    /// until `finishRevoke`.
    public func subscribe(topics: [String], revokes: RevokeHandling = .immediate) async throws(KafkaError) {
        try checkUsable()
        context.state.withLock { $0.revokeHandling = revokes }
        let client = client
        try await callQueue.blocking { () throws(KafkaError) in
            let list = RDKafkaTopicPartitionList(topics.map { TopicPartition($0, pw_rd_kafka_partition_unassigned) })
            if let error = KafkaError.from(rd_kafka_subscribe(client.handle, list.pointer), context: "subscribing") {
                throw error
            }
        }
    }

    /// Replaces the assignment with exactly these partitions, each starting where its `KafkaOffset` says
    /// (no group rebalancing; for replay and tools).
    public func assign(_ offsets: [TopicPartition: KafkaOffset]) async throws(KafkaError) {
        try await assign(offsets, skippingRecordsBefore: nil)
    }

    private func assign(_ offsets: [TopicPartition: KafkaOffset], skippingRecordsBefore timestamp: Int64?)
        async throws(KafkaError)
    {
        try checkUsable()
        let client = client
        let context = context
        try await callQueue.blocking { () throws(KafkaError) in
            // The state first, so that no poll can see the new partitions without their timestamp floor.
            context.state.withLock { state in
                state.replaceAssignment(with: Array(offsets.keys))
                for partition in offsets.keys { state.timestampFloor[partition] = timestamp }
            }
            let list = RDKafkaTopicPartitionList(offsets.mapValues(\.rawValue))
            if let error = KafkaError.from(rd_kafka_assign(client.handle, list.pointer), context: "assigning") {
                throw error
            }
        }
    }

    /// Replaces the assignment with `partitions` and delivers exactly their records with a timestamp at or
    /// after `timestampMilliseconds` (for replay).
    ///
    /// Each partition starts at the offset the broker names for the timestamp (`offsets(forTimestamp…)`);
    /// records older than the timestamp found after it (create times out of order) are skipped. Where the
    /// broker names no offset, the partition is read from its beginning and filtered the same way: a broker
    /// says so when no record is that new (then the filter drops the old ones), and librdkafka's mock
    /// cluster says so always, as it does not implement timestamp lookup.
    public func assign(
        _ partitions: [TopicPartition], atTimestampMilliseconds timestampMilliseconds: Int64,
        timeout: Duration = .seconds(10)
    ) async throws(KafkaError) {
        let offsets = try await offsets(
            forTimestampMilliseconds: timestampMilliseconds, of: partitions, timeout: timeout)
        try await assign(
            offsets.mapValues { $0.map(KafkaOffset.offset) ?? .beginning }, skippingRecordsBefore: timestampMilliseconds
        )
    }

    /// The offset of the first record at or after `timestampMilliseconds`, per partition (`nil` where none).
    public func offsets(
        forTimestampMilliseconds timestampMilliseconds: Int64, of partitions: [TopicPartition],
        timeout: Duration = .seconds(10)
    ) async throws(KafkaError) -> [TopicPartition: Int64?] {
        let client = client
        return try await callQueue.blocking { () throws(KafkaError) in
            let list = RDKafkaTopicPartitionList(
                Dictionary(uniqueKeysWithValues: partitions.map { ($0, timestampMilliseconds) }))
            let result = rd_kafka_offsets_for_times(client.handle, list.pointer, Int32(timeout.milliseconds))
            if let error = KafkaError.from(result, context: "looking up offsets for a timestamp")
                ?? list.firstError(context: "looking up offsets for a timestamp of")
            {
                throw error
            }
            var offsets: [TopicPartition: Int64?] = [:]
            for entry in list.entries { offsets[entry.partition] = entry.offset >= 0 ? entry.offset : nil }
            return offsets
        }
    }

    /// Up to `maxRecords` (at least one) records, waiting at most `timeout` for the first; empty when none came.
    ///
    /// Rebalances, errors and statistics are served while polling, so keep calling `poll` (with paused
    /// partitions if the application is busy) at least every `max.poll.interval.ms`. A consumer subscribed with
    /// `.acknowledged` revokes polls with `pollWithRebalances` instead.
    public func poll(maxRecords: Int = 500, timeout: Duration = .milliseconds(100)) async throws(KafkaError)
        -> [KafkaRecord]
    {
        try await pollWithRebalances(maxRecords: maxRecords, timeout: timeout).records
    }

    /// Like `poll`, with the rebalances served since the last poll (with `.acknowledged` revokes), before the
    /// records: a record is handed out only when its partition is owned and not revoking when the poll returns.
    public func pollWithRebalances(maxRecords: Int = 500, timeout: Duration = .milliseconds(100))
        async throws(KafkaError) -> ConsumerPoll
    {
        try checkUsable()
        let client = client
        let context = context
        let fetchControl = fetchControl
        return try await pollQueue.blocking { () throws(KafkaError) in
            context.applyFetchChanges(through: fetchControl)
            var records: [KafkaRecord] = []
            var wait = timeout.milliseconds
            while records.count < max(maxRecords, 1), let message = rd_kafka_consumer_poll(client.handle, wait) {
                wait = 0
                defer { rd_kafka_message_destroy(message) }
                let code = message.pointee.err
                if code == RD_KAFKA_RESP_ERR_NO_ERROR {
                    records.append(KafkaRecord(message: message))
                } else if code == RD_KAFKA_RESP_ERR__PARTITION_EOF {
                    let topic = String(topicOf: message.pointee.rkt) ?? ""
                    let end = message.pointee.offset
                    context.state.withLock { $0.ends[TopicPartition(topic, message.pointee.partition)] = end }
                } else {
                    context.reportConsumeError(handle: client.handle, message: message)
                }
            }
            return try context.state.withLock { state throws(KafkaError) in
                let events = state.events
                state.events = []
                if let fatal = state.fatalError, records.isEmpty, events.isEmpty { throw fatal }
                return ConsumerPoll(events: events, records: records.filter(state.mayHandOut))
            }
        }
    }

    /// Lets revoking partitions go (see `RebalanceEvent.revoking`): commits what was stored for them and waits for
    /// the answer (a coordinator busy with the rebalance is asked again a few times), then unassigns them, so the
    /// next owner starts where this consumer stopped. Partitions not revoking are ignored. A failed commit is
    /// thrown after the partitions were let go (they must go either way).
    public func finishRevoke(_ partitions: [TopicPartition]) async throws(KafkaError) {
        let client = client
        let context = context
        try await callQueue.blocking { () throws(KafkaError) in
            let (revoked, eager) = context.state.withLock { state in
                (partitions.filter(state.revoking.contains), state.revokingEagerly)
            }
            guard !revoked.isEmpty else { return }
            let failure = context.commitStored(handle: client.handle, partitions: revoked)
            context.unassign(revoked, handle: client.handle, cooperative: !eager)
            if let failure { throw failure }
        }
    }

    /// Makes `offset` the next record of `partition` to fetch: records after it already fetched are fetched again.
    /// Applied by the next poll, before it polls (see `pause`).
    public func seek(_ partition: TopicPartition, to offset: Int64) throws(KafkaError) {
        try checkUsable()
        context.state.withLock { $0.seek(partition, to: offset) }
    }

    /// Marks everything before `nextOffset` in `partition` as done; it is committed with the next commit.
    /// Throws `KafkaError.Code.state` (or another error) when the partition is not assigned any more.
    public func storeOffset(_ nextOffset: Int64, for partition: TopicPartition) throws(KafkaError) {
        let list = RDKafkaTopicPartitionList([partition: nextOffset])
        if let error = KafkaError.from(
            rd_kafka_offsets_store(client.handle, list.pointer), context: "storing offset for")
            ?? list.firstError(context: "storing offset for")
        {
            throw error
        }
        context.state.withLock { state in
            if state.assignment.contains(partition) { state.stored[partition] = nextOffset }
        }
    }

    /// Marks `record` (and everything before it in its partition) as done.
    public func store(_ record: KafkaRecord) throws(KafkaError) {
        try storeOffset(record.nextOffset, for: record.topicPartition)
    }

    /// Whether librdkafka commits the stored offsets by itself, every `auto.commit.interval.ms`
    /// (`enable.auto.commit`, on by default). Its periodic commit skips the moments the group rebalances.
    public var commitsPeriodically: Bool {
        client.property("enable.auto.commit") == "true"
    }

    /// Whether every offset stored so far has been committed, by the periodic commit or by `commit()`. Commit
    /// answers are served by `poll`.
    public var storedOffsetsCommitted: Bool {
        context.state.withLock { $0.stored.isEmpty }
    }

    /// Commits every stored offset now and waits for the group coordinator's answer.
    /// Nothing new to commit is not an error.
    public func commit() async throws(KafkaError) {
        try checkUsable()
        let client = client
        let context = context
        try await callQueue.blocking { () throws(KafkaError) in
            let taken = context.state.withLock { $0.takeStored(Array($0.assignment)) }
            let result = rd_kafka_commit(client.handle, nil, 0)
            guard result != RD_KAFKA_RESP_ERR__NO_OFFSET, let error = KafkaError.from(result, context: "committing")
            else { return }
            context.state.withLock { $0.restoreStored(taken) }
            throw error
        }
    }

    /// Stops fetching from these partitions (those assigned and not paused yet); their records already
    /// polled stay valid, nothing more arrives until `resume`. `pausedPartitions` counts them at once; librdkafka is
    /// told by the next poll, before it polls, on the poll queue: its pause waits for the fetchers, so it never runs
    /// on the caller's thread (the pipeline's actor) nor under the lock the consumer's callbacks take.
    public func pause(_ partitions: [TopicPartition]) throws(KafkaError) {
        try checkUsable()
        context.state.withLock { _ = $0.pause(partitions) }
    }

    /// Resumes those of these partitions that are paused, from where they stopped, with the next poll (as `pause`).
    /// Partitions that are not paused are left alone: resuming them would rewind them in librdkafka 2.0.2.
    public func resume(_ partitions: [TopicPartition]) throws(KafkaError) {
        try checkUsable()
        context.state.withLock { _ = $0.resume(partitions) }
    }

    /// The partitions this consumer owns now.
    public var assignment: Set<TopicPartition> { context.state.withLock { $0.assignment } }

    /// The partitions the application paused.
    public var pausedPartitions: Set<TopicPartition> { context.state.withLock { $0.paused } }

    /// Records not yet consumed per owned partition, from the latest statistics (`statistics.interval.ms`).
    public var lag: [TopicPartition: Int64] { context.state.withLock { $0.lag } }

    /// Group and broker state from the latest statistics (`statistics.interval.ms`); nil before the first.
    public var health: ConsumerHealth? { context.state.withLock { $0.health } }

    /// Per partition, the offset at which `poll` last reached its end, when `enable.partition.eof` is `true`:
    /// every record before it was handed out, and a partition whose last offset is a transaction marker (never
    /// handed out as a record) still ends here.
    public var reachedEnds: [TopicPartition: Int64] { context.state.withLock { $0.ends } }

    /// Commit answers (automatic or explicit) since the consumer started.
    public var commits: CommitCounts { context.state.withLock { $0.commits } }

    /// Raises a fabricated fatal error on the underlying handle (tests only; `@testable import Kafka`).
    func raiseFatalErrorForTesting(_ code: KafkaError.Code) {
        client.raiseFatalErrorForTesting(code)
    }

    /// Serves an assignment of `partitions` on the poll queue, as librdkafka's rebalance callback does inside a poll
    /// (tests only; `@testable import Kafka`).
    func serveAssignmentForTesting(_ partitions: [TopicPartition]) async {
        let client = client
        let context = context
        try? await pollQueue.blocking { () throws(KafkaError) in
            let list = RDKafkaTopicPartitionList(partitions)
            context.rebalance(
                handle: client.handle, code: RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, partitions: list.pointer)
        }
    }

    /// The fatal error that made this consumer unusable, if one was raised.
    public var fatalError: KafkaError? { context.state.withLock { $0.fatalError } }

    /// The low and high watermarks of `partition`, asked of its leader.
    public func watermarks(of partition: TopicPartition, timeout: Duration = .seconds(10)) async throws(KafkaError)
        -> Watermarks
    {
        let client = client
        return try await callQueue.blocking { () throws(KafkaError) in
            var low: Int64 = 0
            var high: Int64 = 0
            let result = rd_kafka_query_watermark_offsets(
                client.handle, partition.topic, partition.partition, &low, &high, Int32(timeout.milliseconds))
            if let error = KafkaError.from(result, context: "querying watermarks of \(partition)") { throw error }
            return Watermarks(low: low, high: high)
        }
    }

    /// The group's committed offsets (the next offset to read) of `partitions`; absent where none is committed.
    public func committedOffsets(of partitions: [TopicPartition], timeout: Duration = .seconds(10))
        async throws(KafkaError) -> [TopicPartition: Int64]
    {
        let client = client
        return try await callQueue.blocking { () throws(KafkaError) in
            let list = RDKafkaTopicPartitionList(partitions)
            let result = rd_kafka_committed(client.handle, list.pointer, Int32(timeout.milliseconds))
            if let error = KafkaError.from(result, context: "fetching committed offsets")
                ?? list.firstError(context: "fetching committed offset of")
            {
                throw error
            }
            var offsets: [TopicPartition: Int64] = [:]
            for entry in list.entries where entry.offset >= 0 { offsets[entry.partition] = entry.offset }
            return offsets
        }
    }

    /// The partition numbers of `topic`, from the cluster's metadata.
    public func partitions(of topic: String, timeout: Duration = .seconds(10)) async throws(KafkaError) -> [Int32] {
        let client = client
        return try await callQueue.blocking { () throws(KafkaError) in
            try Metadata.partitions(of: topic, handle: client.handle, timeout: timeout)
        }
    }

    /// Leaves the group: the stored offsets of the partitions it owns are committed, then the consumer stops. Gives up after `timeout` (closing a cooperative consumer can
    /// hang in librdkafka 2.0.2) and returns whether the close completed. Later calls fail with `.state`.
    @discardableResult
    public func close(timeout: Duration = .seconds(10)) async -> Bool {
        let client = client
        let context = context
        let alreadyClosed = context.state.withLock { state in
            defer { state.isClosed = true }
            return state.isClosed
        }
        if alreadyClosed { return true }
        let closed = try? await pollQueue.blocking { () throws(KafkaError) in
            // A revoke the application never finished would hold the close up: let those partitions go first.
            let (pending, eager) = context.state.withLock { (Array($0.revoking), $0.revokingEagerly) }
            if !pending.isEmpty {
                context.commitStored(handle: client.handle, partitions: pending)
                context.unassign(pending, handle: client.handle, cooperative: !eager)
            }
            return ConsumerCloser(handle: client.handle, context: context).close(within: timeout)
        }
        return closed ?? false
    }

    private func checkUsable() throws(KafkaError) {
        let (closed, fatal) = context.state.withLock { ($0.isClosed, $0.fatalError) }
        if let fatal { throw fatal }
        if closed { throw KafkaError(code: .state, message: "the consumer is closed", isRetriable: false) }
    }
}
