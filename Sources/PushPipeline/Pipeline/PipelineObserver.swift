public import KafkaTypes
public import PushCore

/// Something the pipeline did, for logs and metrics.
public enum PipelineEvent: Sendable, Equatable {
    /// A poll returned `count` records of `topic`.
    case polled(topic: String, count: Int)
    /// A send to a provider started (it ends with `sent`).
    case sendStarted(PushProvider)
    case sent(PushProvider, DeliveryOutcome, latencyMillis: Double)
    /// A send of a known device that did not deliver (after `sent`), with what its log line names.
    case sendFailed(DeliveryOutcome, SendContext)
    case receipt(ReceiptStatus)
    /// A record's outputs were acknowledged this long after its event's `createdAt` (negative with a clock skew).
    case endToEnd(latencyMillis: Double)
    case retryScheduled(attempts: Int)
    /// A retry record taken up before its `x-retry-not-before` moved on, unsent, from one tier's topic to another's.
    case retryMovedOn(from: String, to: String)
    case deadLettered(reason: DeadLetterReason)
    /// A device handed to the retry topic (after `retryScheduled`), with the failure that sent it there.
    case deviceHandedOff(DeliveryFailure, SendContext)
    /// A device that was sent and dead-lettered (after `deadLettered`), with the failure.
    case deviceDeadLettered(DeliveryFailure, SendContext)
    /// A whole record dead-lettered before any send (after `deadLettered`): not an event, or too large.
    case recordDeadLettered(DeliveryFailure, TopicPartition, offset: Int64)
    case breakerOpened(PushProvider)
    case breakerClosed(PushProvider)
    /// The breaker of one push-service origin of `provider` (Web Push) opened: its sends go to the retry topic.
    case originBreakerOpened(PushProvider, origin: String)
    case originBreakerClosed(PushProvider, origin: String)
    /// Records were at `maxInFlightRecords`: the run loop waited for one to end instead of polling.
    case waitedForRoom
    case paused([TopicPartition])
    case resumed([TopicPartition])
    case assigned([TopicPartition])
    /// Revoked partitions let go; `unfinished` records were not done in time and will be redelivered.
    case revoked([TopicPartition], unfinished: Int)
    /// Partitions the group took away without a revoke (the session expired, or a commit was answered for a
    /// generation that had ended): what finished on them since their last commit is not committed, and their next
    /// owner sends it again.
    case lost([TopicPartition])
    case offsetStored(TopicPartition, Int64)
    case pollFailed(String)
    /// Kafka did not acknowledge outputs for `topics`; they are produced again after a backoff. `reason` is a
    /// stable code (`message_too_large`, librdkafka's error name such as `_MSG_TIMED_OUT`, or `other`).
    case produceRetrying(topics: [String], reason: String)
    /// Outputs that had to be produced again were acknowledged.
    case produceRecovered
    /// A failure header of a retry-topic record was not believed (not a number, out of range).
    case headerIgnored(TopicPartition, offset: Int64, header: String, String)
    case storeFailed(TopicPartition, String)
    /// The source's periodic commit did not cover every stored offset within `finalCommitWindow` of the shutdown's
    /// end; they are committed directly.
    case finalCommitWaitExpired
    case commitFailed(String)
    case stalled(sinceMillis: Int64)
    case shutdownStarted(inFlight: Int)
    case shutdownFinished(unfinished: Int)
}

/// Receives the pipeline's events; the service maps them to log lines and metrics.
public protocol PipelineObserver: Sendable {
    func observe(_ event: PipelineEvent)
}
