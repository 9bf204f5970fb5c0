import Essentials
import KafkaTypes
import PushCore
import PushPipeline
import Synchronization

/// A consumer over in-memory partitions: a partition is assigned by the poll before its first records, paused
/// partitions deliver nothing, a seek rewinds a partition, stored offsets and pause/resume calls are recorded, and
/// rebalances are played when the test asks. It never moves the clock: the test drives time.
public final class FakeSource: RecordSource {
    public struct State {
        /// Every record added, per partition, and the index of the next one to hand out.
        public var logs: [TopicPartition: [InputRecord]] = [:]
        public var positions: [TopicPartition: Int] = [:]
        public var paused: Set<TopicPartition> = []
        public var stored: [TopicPartition: Int64] = [:]
        public var pauseCalls: [[TopicPartition]] = []
        public var resumeCalls: [[TopicPartition]] = []
        public var seeks: [(TopicPartition, Int64)] = []
        public var assigned: Set<TopicPartition> = []
        /// Events for the next poll, before its records.
        public var pendingEvents: [SourceEvent] = []
        /// Partitions told `revoking` and not finished yet.
        public var revoking: Set<TopicPartition> = []
        /// Every `finishRevoke`, in order.
        public var finishedRevokes: [[TopicPartition]] = []
        /// Commits that passed.
        public var commits = 0
        /// How many commits from now on the group refuses for a rebalance in progress (`Int.max`: every one).
        public var commitRefusals = 0
        /// Commits refused so far.
        public var refusedCommits = 0
        public var closed = false
        /// Calls of `poll`.
        public var polls = 0
        /// Whether polls hand out records of partitions that are revoking (as a source must not: the pipeline
        /// drops them).
        public var handsOutRevokingRecords = false

        /// Whether every revoke asked for was finished.
        public var revokeDone: Bool { revoking.isEmpty && !finishedRevokes.isEmpty }
    }

    public let state = Mutex(State())
    public let clock: TestClock

    public init(clock: TestClock) { self.clock = clock }

    public func add(_ records: [InputRecord]) {
        state.withLock { state in
            for record in records { state.logs[record.topicPartition, default: []].append(record) }
        }
    }

    /// The next poll hands out `revoking` for `partitions` (before its records).
    public func revokeOnNextPoll(_ partitions: [TopicPartition]) {
        state.withLock { state in
            state.pendingEvents.append(.revoking(partitions))
            state.revoking.formUnion(partitions)
        }
    }

    /// The next poll hands out `assigned` for `partition` again, from `offset` on (what the group committed).
    public func assignAgain(_ partition: TopicPartition, from offset: Int64) {
        state.withLock { state in
            state.assigned.insert(partition)
            state.pendingEvents.append(.assigned([partition]))
            state.positions[partition] = state.logs[partition]?.firstIndex { $0.offset >= offset } ?? 0
        }
    }

    public var snapshot: State { state.withLock { $0 } }

    public func poll(maxRecords: Int, timeout: Duration) async throws -> SourcePoll {
        let polled = state.withLock { state -> SourcePoll in
            state.polls += 1
            // Like a group consumer: a partition is assigned before any of its records arrive.
            let new = Set(state.logs.keys).subtracting(state.assigned).subtracting(state.finishedRevokes.joined())
            state.assigned.formUnion(new)
            var events = state.pendingEvents
            state.pendingEvents = []
            if !new.isEmpty { events.insert(.assigned(new.sorted()), at: 0) }
            var batch: [InputRecord] = []
            for partition in state.assigned.sorted() where !state.paused.contains(partition) {
                if state.revoking.contains(partition) && !state.handsOutRevokingRecords { continue }
                let log = state.logs[partition] ?? []
                let from = state.positions[partition] ?? 0
                let take = min(maxRecords - batch.count, log.count - from)
                guard take > 0 else { continue }
                batch += log[from..<(from + take)]
                state.positions[partition] = from + take
            }
            return SourcePoll(events: events, records: batch)
        }
        // Real time, only to keep an idle pipeline from spinning: the test clock does not move.
        if polled.records.isEmpty && polled.events.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        return polled
    }

    public func storeOffset(_ offset: Int64, for partition: TopicPartition) throws {
        state.withLock { $0.stored[partition] = offset }
    }

    public func pause(_ partitions: [TopicPartition]) throws {
        state.withLock { state in
            state.paused.formUnion(partitions)
            state.pauseCalls.append(partitions)
        }
    }

    public func resume(_ partitions: [TopicPartition]) throws {
        state.withLock { state in
            state.paused.subtract(partitions)
            state.resumeCalls.append(partitions)
        }
    }

    public func seek(_ partition: TopicPartition, to offset: Int64) throws {
        state.withLock { state in
            state.seeks.append((partition, offset))
            let log = state.logs[partition] ?? []
            state.positions[partition] = log.firstIndex { $0.offset >= offset } ?? log.count
        }
    }

    public func finishRevoke(_ partitions: [TopicPartition]) async throws {
        state.withLock { state in
            state.finishedRevokes.append(partitions)
            state.revoking.subtract(partitions)
            state.assigned.subtract(partitions)
            state.paused.subtract(partitions)
        }
    }

    public func commit() async throws {
        let refused = state.withLock { state in
            guard state.commitRefusals > 0 else {
                state.commits += 1
                return false
            }
            state.commitRefusals -= 1
            state.refusedCommits += 1
            return true
        }
        if refused { throw CommitRefusedDuringRebalance("REBALANCE_IN_PROGRESS") }
    }

    public func close() async { state.withLock { $0.closed = true } }
}
