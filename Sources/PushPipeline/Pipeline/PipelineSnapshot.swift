import KafkaTypes
import PushCore

/// The pipeline's state as readers outside its actor see it: one value the actor publishes whenever its decisions
/// change it (and at every poll), read by whoever samples it — the metrics at each scrape, the probes, the
/// watchdog — instead of each keeping its own copy from events.
public struct PipelineSnapshot: Sendable, Equatable {
    /// Records admitted and not yet done or dropped.
    public var recordsInFlight = 0
    /// Retry records held until their due time, at most one per retry-tier partition.
    public var recordsWaitingForDueTime = 0
    /// Planned devices of unfinished records: the device budget's units held.
    public var devicesInFlight = 0
    /// The partitions owned now (those being revoked included), and how many of them are paused.
    public var partitionsAssigned = 0
    public var partitionsPaused = 0
    /// The providers whose breaker is open, in `PushProvider` order.
    public var openBreakers: [PushProvider] = []
    /// How many push-service origins' breakers are open (Web Push; their sends go to the retry topic, consumption
    /// goes on).
    public var openOriginBreakers = 0
    /// When the last poll returned, in epoch microseconds.
    public var lastPollMicros: Int64

    public init(lastPollMicros: Int64) {
        self.lastPollMicros = lastPollMicros
    }
}
