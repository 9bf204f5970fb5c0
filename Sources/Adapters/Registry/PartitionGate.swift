import KafkaTypes

/// Which fan-out partitions wait for their registry partition, and which of them the pipeline paused: the fan-out
/// stage's record source pauses a partition from its assignment until its registry partition is restored, and never
/// resumes one the pipeline paused itself (resuming a partition that is not paused would rewind it). Pure: events in,
/// the partitions to pause, resume or seek out.
///
/// Invariant: a partition is paused in the consumer exactly when it is gated or the pipeline paused it.
struct PartitionGate: Sendable {
    /// Assigned, its registry partition not restored yet: paused, none of its records handed out.
    private(set) var gated: Set<TopicPartition> = []
    /// Paused by the pipeline (in-flight bounds).
    private var pausedByPipeline: Set<TopicPartition> = []

    /// `partitions` were assigned: every one is gated; returns those to pause.
    mutating func assigned(_ partitions: [TopicPartition]) -> [TopicPartition] {
        gated.formUnion(partitions)
        return partitions
    }

    /// `partition`'s registry partition is restored: returns it to resume, unless the pipeline paused it or it was
    /// not gated.
    mutating func restored(_ partition: TopicPartition) -> [TopicPartition] {
        guard gated.remove(partition) != nil, !pausedByPipeline.contains(partition) else { return [] }
        return [partition]
    }

    /// The pipeline pauses `partitions`: returns those not paused already by the gate.
    mutating func pipelinePaused(_ partitions: [TopicPartition]) -> [TopicPartition] {
        pausedByPipeline.formUnion(partitions)
        return partitions.filter { !gated.contains($0) }
    }

    /// The pipeline resumes `partitions`: returns those the gate does not hold.
    mutating func pipelineResumed(_ partitions: [TopicPartition]) -> [TopicPartition] {
        pausedByPipeline.subtract(partitions)
        return partitions.filter { !gated.contains($0) }
    }

    /// `partitions` are no longer owned (revoked or lost): forgotten.
    mutating func released(_ partitions: [TopicPartition]) {
        gated.subtract(partitions)
        pausedByPipeline.subtract(partitions)
    }

    /// `records` without those of gated partitions, and for each gated partition that had some, the offset of its
    /// first one: the source seeks back there, so they come again once the partition is resumed.
    func admit(_ records: [KafkaRecord]) -> (records: [KafkaRecord], seeks: [(TopicPartition, Int64)]) {
        guard !gated.isEmpty else { return (records, []) }
        var admitted: [KafkaRecord] = []
        admitted.reserveCapacity(records.count)
        var seeks: [(TopicPartition, Int64)] = []
        var held: Set<TopicPartition> = []
        for record in records {
            let partition = record.topicPartition
            guard gated.contains(partition) else {
                admitted.append(record)
                continue
            }
            if held.insert(partition).inserted { seeks.append((partition, record.offset)) }
        }
        return (admitted, seeks)
    }
}
