import Synchronization

/// What the pipeline keeps per assigned partition.
struct PartitionState: Sendable {
    /// Distinguishes this assignment from an earlier one of the same partition, so that work
    /// finishing after a revoke never stores offsets into a newer assignment.
    let generation: Int
    var tracker = OffsetTracker()
    /// Records dispatched and not yet done (waiting retry records excluded).
    var running = 0
    /// Retry records not yet due, oldest first; the partition stays paused while there are any.
    var waiting: [InputRecord] = []
    /// Whether the source was told to pause this partition.
    var pausedAtSource = false
    /// Set while the partition is being revoked: nothing new is dispatched for it.
    var revoking = false

    init(generation: Int) {
        self.generation = generation
    }
}

/// How the pipeline stopped.
public enum PipelineStop: Sendable, Equatable {
    /// After a shutdown request: `unfinished` records were not done within the grace period and
    /// will be delivered again (their offsets were not stored).
    case shutDown(unfinished: Int)
}

/// Set once when shutdown begins; read by every send.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .acquiring) }

    func set() { flag.store(true, ordering: .releasing) }
}
