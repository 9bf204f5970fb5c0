import Essentials
import KafkaTypes
import PushCore
import PushPipeline
import Synchronization

/// A consumer over in-memory partitions: paused partitions deliver nothing, stored offsets and
/// pause/resume calls are recorded, and rebalances are played when the test asks.
public final class FakeSource: RecordSource {
    public struct State {
        public var queues: [TopicPartition: [InputRecord]] = [:]
        public var paused: Set<TopicPartition> = []
        public var stored: [TopicPartition: Int64] = [:]
        public var pauseCalls: [[TopicPartition]] = []
        public var resumeCalls: [[TopicPartition]] = []
        public var assigned: Set<TopicPartition> = []
        public var pendingRevoke: [TopicPartition]?
        public var revokeDone = false
        public var commits = 0
        public var closed = false
        /// Calls of `poll`.
        public var polls = 0
    }

    public let state = Mutex(State())
    public let clock: TestClock

    public init(clock: TestClock) { self.clock = clock }

    public func add(_ records: [InputRecord]) {
        state.withLock { state in
            for record in records { state.queues[record.topicPartition, default: []].append(record) }
        }
    }

    /// The next poll calls `partitionsRevoking` before returning.
    public func revokeOnNextPoll(_ partitions: [TopicPartition]) {
        state.withLock { $0.pendingRevoke = partitions }
    }

    public var snapshot: State { state.withLock { $0 } }

    public func poll(maxRecords: Int, timeout: Duration, listener: any RebalanceListener) async throws -> [InputRecord]
    {
        // Like a group consumer: a partition is assigned before any of its records arrive.
        let newlyAssigned = state.withLock { state in
            state.polls += 1
            let new = Set(state.queues.keys).subtracting(state.assigned)
            state.assigned.formUnion(new)
            return new.sorted { $0.description < $1.description }
        }
        if !newlyAssigned.isEmpty { await listener.partitionsAssigned(newlyAssigned) }
        if let revoke = state.withLock({ state -> [TopicPartition]? in
            defer { state.pendingRevoke = nil }
            return state.pendingRevoke
        }) {
            await listener.partitionsRevoking(revoke)
            state.withLock { state in
                for partition in revoke {
                    state.queues[partition] = nil
                    state.assigned.remove(partition)
                    state.paused.remove(partition)
                }
                state.revokeDone = true
            }
        }
        let records = state.withLock { state -> [InputRecord] in
            var batch: [InputRecord] = []
            for partition in state.queues.keys.sorted(by: { $0.description < $1.description })
            where !state.paused.contains(partition) {
                let take = min(maxRecords - batch.count, state.queues[partition]?.count ?? 0)
                batch += state.queues[partition]?.prefix(take) ?? []
                state.queues[partition]?.removeFirst(take)
            }
            return batch
        }
        if records.isEmpty {
            clock.advance(by: timeout)
            try await Task.sleep(for: .milliseconds(1))
        }
        return records
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

    public func commit() async throws { state.withLock { $0.commits += 1 } }

    public func close() async { state.withLock { $0.closed = true } }
}
