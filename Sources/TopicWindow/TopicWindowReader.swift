public import Kafka
public import KafkaTypes
import Synchronization

/// Reads a window of a topic by explicit assignment, for tools (`receipts`, `replay`): never joins a live
/// consumer group and never commits. Records come in batches, in offset order per partition; reading ends
/// when every partition reached its window's end, or when the caller's task is cancelled. A partition ends when
/// the consumer reaches the window's end offset, whatever the last record is: the last offsets of a partition
/// written by a transactional producer are a marker, never handed out as a record.
public final class TopicWindowReader: Sendable {
    public let topic: String
    private let consumer: KafkaConsumer
    private let state = Mutex(ReadState(windows: []))

    /// A consumer for `topic` with `configuration`'s brokers and security settings; its group id is its own
    /// (`push-worker-tool-<random>`) and auto-commit is off, so the live group's offsets are never touched.
    public init(configuration: KafkaConfiguration, topic: String) throws(KafkaError) {
        var properties = configuration
        properties["group.id"] = "push-worker-tool-\(UInt64.random(in: 0...UInt64.max))"
        properties["enable.auto.commit"] = "false"
        properties["enable.partition.eof"] = "true"
        self.topic = topic
        consumer = try KafkaConsumer(configuration: properties)
    }

    /// The window of every selected partition (all of the topic's when `partitions` is `nil`).
    public func plan(from: TopicPosition, to: TopicPosition, partitions selected: [Int32]? = nil)
        async throws(TopicWindowError) -> [PartitionWindow]
    {
        let existing: [Int32]
        do {
            existing = try await consumer.partitions(of: topic)
        } catch {
            throw .kafka(error)
        }
        let partitions = Set(selected ?? existing).sorted()
        let unknown = partitions.filter { !existing.contains($0) }
        guard unknown.isEmpty else { throw .unknownPartitions(topic: topic, unknown) }
        do {
            return try await windows(from: from, to: to, partitions: partitions.map { TopicPartition(topic, $0) })
        } catch {
            throw .kafka(error)
        }
    }

    private func windows(from: TopicPosition, to: TopicPosition, partitions: [TopicPartition])
        async throws(KafkaError) -> [PartitionWindow]
    {
        let fromOffsets = try await timeOffsets(from, partitions)
        let toOffsets = try await timeOffsets(to, partitions)
        var windows: [PartitionWindow] = []
        for partition in partitions {
            let watermarks = try await consumer.watermarks(of: partition)
            windows.append(
                .between(
                    from, to, partition: partition.partition, watermarks: watermarks,
                    fromTimeOffset: fromOffsets[partition] ?? nil, toTimeOffset: toOffsets[partition] ?? nil))
        }
        return windows
    }

    private func timeOffsets(_ position: TopicPosition, _ partitions: [TopicPartition]) async throws(KafkaError)
        -> [TopicPartition: Int64?]
    {
        guard case .time(let millis) = position, !partitions.isEmpty else { return [:] }
        return try await consumer.offsets(forTimestampMilliseconds: millis, of: partitions)
    }

    /// Starts reading `windows` (partitions with an empty window are not read at all).
    public func start(_ windows: [PartitionWindow]) async throws(KafkaError) {
        let open = windows.filter { $0.count > 0 }
        state.withLock { $0 = ReadState(windows: windows) }
        guard !open.isEmpty else { return }
        try await assign(open)
    }

    /// Assigns the partitions of `windows`, each at its window's start.
    private func assign(_ windows: [PartitionWindow]) async throws(KafkaError) {
        try await consumer.assign(
            Dictionary(
                uniqueKeysWithValues: windows.map {
                    (TopicPartition(topic, $0.partition), KafkaOffset.offset($0.start))
                }
            ))
    }

    /// The next records inside the windows, in offset order per partition; empty when none came within
    /// `timeout` or every window is read. A partition whose remaining records are gone from the broker
    /// (retention) ends when its low watermark passes its window's end, checked after `idleCheck` without
    /// records.
    public func poll(maxRecords: Int = 1000, timeout: Duration = .milliseconds(200), idleCheck: Duration = .seconds(5))
        async throws(KafkaError) -> [KafkaRecord]
    {
        guard !isFinished else { return [] }
        let records = try await consumer.poll(maxRecords: maxRecords, timeout: timeout)
        let ends = reachedEnds
        let (inside, idlePartitions) = state.withLock { state in
            let inside = state.take(records, topic: topic)
            state.finish(reachedEnds: ends)
            return (inside, state.idle(for: idleCheck))
        }
        for partition in idlePartitions {
            let low = try await consumer.watermarks(of: TopicPartition(topic, partition)).low
            state.withLock { $0.retire(partition, ifGoneBelow: low) }
        }
        return inside
    }

    /// Per partition of the topic, the offset at which the consumer last reached its end.
    private var reachedEnds: [Int32: Int64] {
        var ends: [Int32: Int64] = [:]
        for (partition, end) in consumer.reachedEnds where partition.topic == topic { ends[partition.partition] = end }
        return ends
    }

    /// Whether every window has been read to its end.
    public var isFinished: Bool { state.withLock { $0.open.isEmpty } }

    /// Per partition, the next offset to read (the window's end once it is read).
    public var positions: [Int32: Int64] { state.withLock { $0.next } }

    /// Stops fetching from `partitions` until `resume`.
    public func pause(_ partitions: [Int32]) throws(KafkaError) {
        try consumer.pause(partitions.map { TopicPartition(topic, $0) })
    }

    /// Fetches from `partitions` again (only partitions that were paused).
    public func resume(_ partitions: [Int32]) throws(KafkaError) {
        try consumer.resume(partitions.map { TopicPartition(topic, $0) })
    }

    /// Reads `windows` to their ends, handing each batch of records inside them to `handle`; returns where
    /// each partition stopped (its window's end unless the task was cancelled first).
    public func read(_ windows: [PartitionWindow], handle: ([KafkaRecord]) async throws -> Void) async throws
        -> [Int32: Int64]
    {
        try await start(windows)
        while !isFinished, !Task.isCancelled {
            let records = try await poll()
            if !records.isEmpty { try await handle(records) }
        }
        return positions
    }

    /// Reads the window `[from, to)` of `topic` to its end with a reader of its own, then closes it (also when
    /// reading fails): for the tools that read a topic once.
    public static func read(
        _ topic: String, configuration: KafkaConfiguration, from: TopicPosition = .beginning,
        to: TopicPosition = .end, partitions: [Int32]? = nil, handle: ([KafkaRecord]) async throws -> Void
    ) async throws {
        let reader = try TopicWindowReader(configuration: configuration, topic: topic)
        do {
            _ = try await reader.read(try await reader.plan(from: from, to: to, partitions: partitions), handle: handle)
        } catch {
            await reader.close()
            throw error
        }
        await reader.close()
    }

    /// Reads every partition of `windows` from its start and keeps reading what is written later, until the
    /// task is cancelled: a topic followed like a table. `caughtUp` is called once, when every partition has
    /// reached its window's end (the high watermark when the window was planned).
    public func follow(
        _ windows: [PartitionWindow], caughtUp: @Sendable () -> Void, handle: ([KafkaRecord]) async throws -> Void
    ) async throws {
        var behind = Dictionary(uniqueKeysWithValues: windows.filter { $0.count > 0 }.map { ($0.partition, $0.end) })
        if behind.isEmpty { caughtUp() }
        try await assign(windows)
        while !Task.isCancelled {
            let records = try await consumer.poll(maxRecords: 1000, timeout: .milliseconds(200))
            let mine = records.filter { $0.topic == topic }
            if !mine.isEmpty { try await handle(mine) }
            guard !behind.isEmpty else { continue }
            for record in mine where record.nextOffset >= behind[record.partition] ?? .max {
                behind[record.partition] = nil
            }
            for (partition, end) in reachedEnds where end >= behind[partition] ?? .max { behind[partition] = nil }
            if behind.isEmpty { caughtUp() }
        }
    }

    /// Closes the consumer (it never joined a group, so nothing is revoked or committed).
    public func close() async {
        await consumer.close(timeout: .seconds(5))
    }
}

/// Why a window could not be planned.
public enum TopicWindowError: Error, Sendable, CustomStringConvertible {
    case kafka(KafkaError)
    case unknownPartitions(topic: String, [Int32])

    public var description: String {
        switch self {
        case .kafka(let error): "\(error)"
        case .unknownPartitions(let topic, let partitions):
            "\(topic) has no partition \(partitions.map(String.init).joined(separator: ", "))"
        }
    }
}
