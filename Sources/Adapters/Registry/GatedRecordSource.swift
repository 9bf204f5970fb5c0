package import KafkaTypes
import PushPipeline
import Synchronization

/// The fan-out stage's record source: the fan-out consumer whose rebalances drive the registry partitions it holds
/// (`AssignedRegistry`), and which hands out no record of a partition before that partition of the registry is
/// restored. An assigned partition is paused (through the consumer's queued fetch changes; the poll loop never
/// waits) until `directory(ofPartition:)` answers, checked at each poll; a record of it fetched before the pause took
/// effect is held back by seeking to it (`PartitionGate`). A registry partition is given up once its fan-out
/// partition's revoke is finished, or at once when it is lost.
package final class GatedRecordSource: RecordSource {
    /// The consumer of the fan-out topic.
    package let inner: KafkaRecordSource
    private let registry: AssignedRegistry
    private let gate = Mutex(PartitionGate())

    package init(inner: KafkaRecordSource, registry: AssignedRegistry) {
        self.inner = inner
        self.registry = registry
    }

    package func poll(maxRecords: Int, timeout: Duration) async throws -> ConsumerPoll {
        try resumeRestored()
        var poll = try await inner.poll(maxRecords: maxRecords, timeout: timeout)
        for event in poll.events {
            switch event {
            case .assigned(let partitions):
                registry.assign(Set(partitions.map(\.partition)))
                try inner.pause(gate.withLock { $0.assigned(partitions) })
            case .revoking:
                break  // given up in finishRevoke, once the pipeline drained them
            case .lost(let partitions):
                gate.withLock { $0.released(partitions) }
                registry.revoke(Set(partitions.map(\.partition)))
            }
        }
        let admitted = gate.withLock { $0.admit(poll.records) }
        for (partition, offset) in admitted.seeks { try inner.seek(partition, to: offset) }
        poll.records = admitted.records
        return poll
    }

    /// Resumes each gated partition whose registry partition is restored now.
    private func resumeRestored() throws {
        let resumed = gate.withLock { gate in
            gate.gated.filter { registry.directory(ofPartition: $0.partition) != nil }.flatMap { gate.restored($0) }
        }
        if !resumed.isEmpty { try inner.resume(resumed) }
    }

    package func storeOffset(_ offset: Int64, for partition: TopicPartition) throws {
        try inner.storeOffset(offset, for: partition)
    }

    package func pause(_ partitions: [TopicPartition]) throws {
        try inner.pause(gate.withLock { $0.pipelinePaused(partitions) })
    }

    package func resume(_ partitions: [TopicPartition]) throws {
        try inner.resume(gate.withLock { $0.pipelineResumed(partitions) })
    }

    package func seek(_ partition: TopicPartition, to offset: Int64) throws {
        try inner.seek(partition, to: offset)
    }

    package func finishRevoke(_ partitions: [TopicPartition]) async throws {
        try await inner.finishRevoke(partitions)
        gate.withLock { $0.released(partitions) }
        registry.revoke(Set(partitions.map(\.partition)))
    }

    package var commitsPeriodically: Bool { inner.commitsPeriodically }

    package var storedOffsetsCommitted: Bool { inner.storedOffsetsCommitted }

    package func commit() async throws {
        try await inner.commit()
    }

    package func close() async {
        await inner.close()
    }
}
