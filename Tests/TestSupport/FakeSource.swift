import Essentials
public import KafkaTypes
import PushCore
public import PushPipeline
public import Synchronization

/// A consumer over in-memory partitions: a partition is assigned by the poll before its first records, paused
/// partitions deliver nothing, a seek rewinds a partition, stored offsets and pause/resume calls are recorded, and
/// rebalances are played when the test asks. It never moves the clock: the test drives time.
///
/// A poll with nothing to hand out waits, like a consumer's, up to its timeout on the test clock: until the test
/// adds records, plays a rebalance, the pipeline resumes or seeks a partition, the clock reaches the timeout or the
/// task is cancelled; then it returns empty. It neither spins nor sleeps in real time.
public final class FakeSource: RecordSource {
    public struct State {
        /// Every record added, per partition, and the index of the next one to hand out.
        public var logs: [TopicPartition: [KafkaRecord]] = [:]
        public var positions: [TopicPartition: Int] = [:]
        public var paused: Set<TopicPartition> = []
        public var stored: [TopicPartition: Int64] = [:]
        /// Every offset stored, in order.
        public var storeCalls: [(TopicPartition, Int64)] = []
        public var pauseCalls: [[TopicPartition]] = []
        public var resumeCalls: [[TopicPartition]] = []
        public var seeks: [(TopicPartition, Int64)] = []
        public var assigned: Set<TopicPartition> = []
        /// Events for the next poll, before its records.
        public var pendingEvents: [RebalanceEvent] = []
        /// Partitions told `revoking` and not finished yet.
        public var revoking: Set<TopicPartition> = []
        /// Partitions told `lost`: never assigned again.
        public var lost: Set<TopicPartition> = []
        /// Every `finishRevoke`, in order.
        public var finishedRevokes: [[TopicPartition]] = []
        /// Direct commits (`commit()`).
        public var commits = 0
        /// Whether the source commits the stored offsets periodically: at every poll, unless a rebalance holds it.
        public var periodicCommits = false
        /// Polls from now on whose periodic commit a rebalance holds (`Int.max`: every one).
        public var periodicCommitsHeld = 0
        /// The offsets committed so far, periodically or directly.
        public var committed: [TopicPartition: Int64] = [:]
        public var closed = false
        /// Calls of `poll`.
        public var polls = 0
        /// Whether polls hand out records of partitions that are revoking (as a source must not: the pipeline
        /// drops them).
        public var handsOutRevokingRecords = false
        /// The alarm of the poll waiting with nothing to hand out, if one waits.
        fileprivate var idlePoll: TestClock.Alarm?
        /// Whether a poll waits with nothing to hand out.
        public var isPollWaiting: Bool { idlePoll != nil }

        /// Whether every revoke asked for was finished.
        public var revokeDone: Bool { revoking.isEmpty && !finishedRevokes.isEmpty }
    }

    public let state = Mutex(State())
    public let clock: TestClock

    public init(clock: TestClock) { self.clock = clock }

    public func add(_ records: [KafkaRecord]) {
        changed { state in
            for record in records { state.logs[record.topicPartition, default: []].append(record) }
        }
    }

    /// Changes the state in a way that may give a poll something to hand out: a waiting poll returns.
    private func changed(_ change: (inout State) -> Void) {
        let idle = state.withLock { state in
            change(&state)
            defer { state.idlePoll = nil }
            return state.idlePoll
        }
        if let idle { clock.wake(idle) }
    }

    /// The next poll hands out `revoking` for `partitions` (before its records).
    public func revokeOnNextPoll(_ partitions: [TopicPartition]) {
        changed { state in
            state.pendingEvents.append(.revoking(partitions))
            state.revoking.formUnion(partitions)
        }
    }

    /// The next poll hands out `lost` for `partitions` (before its records), which it owns no more.
    public func loseOnNextPoll(_ partitions: [TopicPartition]) {
        changed { state in
            state.pendingEvents.append(.lost(partitions))
            state.assigned.subtract(partitions)
            state.lost.formUnion(partitions)
        }
    }

    /// The next poll hands out `assigned` for `partition` again, from `offset` on (what the group committed).
    public func assignAgain(_ partition: TopicPartition, from offset: Int64) {
        changed { state in
            state.assigned.insert(partition)
            state.pendingEvents.append(.assigned([partition]))
            state.positions[partition] = state.logs[partition]?.firstIndex { $0.offset >= offset } ?? 0
        }
    }

    public var snapshot: State { state.withLock { $0 } }

    public func poll(maxRecords: Int, timeout: Duration) async throws -> ConsumerPoll {
        let (polled, idle) = state.withLock { state -> (ConsumerPoll, TestClock.Alarm?) in
            state.polls += 1
            if state.periodicCommits {
                if state.periodicCommitsHeld > 0 {
                    state.periodicCommitsHeld -= 1
                } else {
                    state.committed.merge(state.stored) { $1 }
                }
            }
            // Like a group consumer: a partition is assigned before any of its records arrive.
            let new = Set(state.logs.keys).subtracting(state.assigned).subtracting(state.finishedRevokes.joined())
                .subtracting(state.lost)
            state.assigned.formUnion(new)
            var events = state.pendingEvents
            state.pendingEvents = []
            if !new.isEmpty { events.insert(.assigned(new.sorted()), at: 0) }
            var batch: [KafkaRecord] = []
            for partition in state.assigned.sorted() where !state.paused.contains(partition) {
                if state.revoking.contains(partition) && !state.handsOutRevokingRecords { continue }
                let log = state.logs[partition] ?? []
                let from = state.positions[partition] ?? 0
                let take = min(maxRecords - batch.count, log.count - from)
                guard take > 0 else { continue }
                batch += log[from..<(from + take)]
                state.positions[partition] = from + take
            }
            guard events.isEmpty, batch.isEmpty else { return (ConsumerPoll(events: events, records: batch), nil) }
            // Reserved under this lock: a change after this point wakes the wait (`changed`).
            let idle = clock.reserveAlarm()
            state.idlePoll = idle
            return (ConsumerPoll(events: [], records: []), idle)
        }
        if let idle {
            // Cancelled, it returns empty too, as a consumer's poll does not throw for that.
            try? await clock.sleep(for: timeout, alarm: idle)
            state.withLock { state in
                if state.idlePoll == idle { state.idlePoll = nil }
            }
        }
        return polled
    }

    public func storeOffset(_ offset: Int64, for partition: TopicPartition) throws {
        state.withLock { state in
            state.stored[partition] = offset
            state.storeCalls.append((partition, offset))
        }
    }

    public func pause(_ partitions: [TopicPartition]) throws {
        state.withLock { state in
            state.paused.formUnion(partitions)
            state.pauseCalls.append(partitions)
        }
    }

    public func resume(_ partitions: [TopicPartition]) throws {
        changed { state in
            state.paused.subtract(partitions)
            state.resumeCalls.append(partitions)
        }
    }

    public func seek(_ partition: TopicPartition, to offset: Int64) throws {
        changed { state in
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

    public var commitsPeriodically: Bool { state.withLock { $0.periodicCommits } }

    public var storedOffsetsCommitted: Bool {
        state.withLock { state in state.stored.allSatisfy { state.committed[$0.key] == $0.value } }
    }

    public func commit() async throws {
        state.withLock { state in
            state.commits += 1
            state.committed.merge(state.stored) { $1 }
        }
    }

    public func close() async { state.withLock { $0.closed = true } }
}
