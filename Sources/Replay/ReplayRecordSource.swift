public import KafkaTypes
public import PushPipeline
import Synchronization
public import TopicWindow

/// The record-source port for a replay: a window of one topic read by explicit assignment (never the live
/// group, nothing committed). Each record loses the failure headers of an earlier run (`x-attempts`,
/// `x-first-failure`, `x-retry-due`) and its `x-replay-run-id` (the run's own id goes to the outputs through
/// `PipelineSettings.replayRunId`): attempt counters start again. Its `x-source-*` headers stay, so receipts name
/// the original input position.
public final class ReplayRecordSource: RecordSource {
    private let reader: TopicWindowReader
    private let windows: [PartitionWindow]
    private let progress = Mutex(Progress())

    private struct Progress {
        var started = false
        /// Per partition, one past the last record handed to the pipeline, and what the pipeline stored.
        var handedOut: [Int32: Int64] = [:]
        var stored: [Int32: Int64] = [:]
    }

    /// Headers of an earlier run that a replay drops.
    static let droppedHeaders: Set<String> = [
        FailureHeaders.attempts, FailureHeaders.firstFailure, FailureHeaders.retryDue, FailureHeaders.replayRunId,
    ]

    public init(reader: TopicWindowReader, windows: [PartitionWindow]) {
        self.reader = reader
        self.windows = windows
    }

    /// Whether every window was read and every record handed out is done (its offset stored).
    public var isComplete: Bool {
        guard reader.isFinished else { return false }
        return progress.withLock { progress in
            progress.handedOut.allSatisfy { partition, next in (progress.stored[partition] ?? 0) >= next }
        }
    }

    /// Per partition, the next offset a later replay should start at: the first record not done.
    public var resumePositions: [Int32: Int64] {
        let read = reader.positions
        return progress.withLock { progress in
            var positions: [Int32: Int64] = [:]
            for window in windows {
                let handedOut = progress.handedOut[window.partition]
                let stored = progress.stored[window.partition] ?? window.start
                positions[window.partition] =
                    if let handedOut, stored < handedOut { stored } else {
                        max(stored, read[window.partition] ?? window.start)
                    }
            }
            return positions
        }
    }

    public func poll(maxRecords: Int, timeout: Duration) async throws -> ConsumerPoll {
        let first = progress.withLock { progress in
            defer { progress.started = true }
            return !progress.started
        }
        var events: [RebalanceEvent] = []
        if first {
            try await reader.start(windows)
            events = [.assigned(windows.filter { $0.count > 0 }.map { TopicPartition(reader.topic, $0.partition) })]
        }
        guard !reader.isFinished else {
            try await Task.sleep(for: timeout)
            return ConsumerPoll(events: events)
        }
        let records = try await reader.poll(maxRecords: maxRecords, timeout: timeout)
        progress.withLock { progress in
            for record in records { progress.handedOut[record.partition] = record.nextOffset }
        }
        return ConsumerPoll(
            events: events,
            records: records.map { record in
                var record = record
                record.headers.removeAll { Self.droppedHeaders.contains($0.name) }
                return record
            })
    }

    public func storeOffset(_ offset: Int64, for partition: TopicPartition) throws {
        progress.withLock { $0.stored[partition.partition] = max($0.stored[partition.partition] ?? 0, offset) }
    }

    public func pause(_ partitions: [TopicPartition]) throws {
        try reader.pause(partitions.map(\.partition))
    }

    public func resume(_ partitions: [TopicPartition]) throws {
        try reader.resume(partitions.map(\.partition))
    }

    /// Replays only read forward: the pipeline seeks back only on retry topics, which a replay never reads.
    public func seek(_ partition: TopicPartition, to offset: Int64) throws {}

    /// A replay's assignment is explicit: nothing is ever revoked.
    public func finishRevoke(_ partitions: [TopicPartition]) async throws {}

    /// A replay never touches a group's offsets: nothing is committed, periodically or otherwise.
    public var commitsPeriodically: Bool { false }

    public var storedOffsetsCommitted: Bool { true }

    public func commit() async throws {}

    public func close() async {
        await reader.close()
    }
}
