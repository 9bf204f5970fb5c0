import KafkaTypes

/// A change of what a consumer fetches, asked for by the application and applied by the poll loop before its next
/// poll, on the poll queue: librdkafka serves a pause or a resume synchronously, so it never runs on the caller's
/// thread or under the lock the consumer's callbacks take.
enum FetchChange: Sendable, Equatable {
    case pause([TopicPartition])
    case resume([TopicPartition])
    case seek(TopicPartition, Int64)

    /// The partitions the change is about.
    var partitions: [TopicPartition] {
        switch self {
        case .pause(let partitions), .resume(let partitions): partitions
        case .seek(let partition, _): [partition]
        }
    }

    /// This change without `removed`; `nil` when nothing is left.
    func without(_ removed: Set<TopicPartition>) -> FetchChange? {
        switch self {
        case .pause(let partitions):
            let kept = partitions.filter { !removed.contains($0) }
            return kept.isEmpty ? nil : .pause(kept)
        case .resume(let partitions):
            let kept = partitions.filter { !removed.contains($0) }
            return kept.isEmpty ? nil : .resume(kept)
        case .seek(let partition, _):
            return removed.contains(partition) ? nil : self
        }
    }
}

/// The librdkafka calls that change what a consumer fetches: the consumer's handle, or a fake in tests.
protocol FetchControl: Sendable {
    /// Applies `change`; returns the partitions it failed for, with the first error (none: it succeeded).
    func apply(_ change: FetchChange) -> (failed: [TopicPartition], error: KafkaError?)
}
