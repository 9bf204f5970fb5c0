/// What the pipeline needs to know besides its ports: topics, identity and limits.
public struct PipelineSettings: Sendable, Equatable {
    /// Topics of chat-message events.
    public var inputTopics: [String]
    /// The retry topics, one per delay tier; the worker consumes them all.
    public var retryTiers: RetryTiers
    public var receiptsTopic: String
    public var deadLetterTopic: String
    /// One record per token a provider called dead, keyed `platform:tokenHash` (meant to be compacted).
    public var invalidTokensTopic: String = "push.invalid-tokens"
    /// Whether sends to tokens on the invalid-token topic are skipped (`skipped`, reason `invalid_token`).
    public var skipKnownInvalidTokens = true
    /// Above this share of "invalid token" answers of one app's sends to one provider (`PUSH_INVALIDATION_MAX_RATIO`)
    /// those answers are suspect (`TokenInvalidationGuard`).
    public var invalidationMaxRatio = 0.2
    /// The sends of one app to one provider in the window before the ratio counts (`PUSH_INVALIDATION_MIN_SENDS`).
    public var invalidationMinSends = 200
    /// The consumer group, written to `x-source-group`.
    public var group: String
    /// This worker's name (the pod), written to receipts and `x-worker`.
    public var worker: String
    /// The replay run this pipeline is (`push-worker replay`), written to every receipt; `nil` for the live
    /// worker, whose receipts carry a run id only from a retry record a replay wrote.
    public var replayRunId: String?
    /// Records per poll.
    public var batchSize: Int = 500
    /// The longest one poll waits for records; also how often pauses and due retries are checked.
    public var pollTimeout: Duration = .milliseconds(100)
    /// Records consumed and not yet done; at this many the pipeline stops polling until one is done, and pauses
    /// every partition if that lasts `inFlightPauseDelay`.
    /// A higher limit keeps more memory resident (about 270 MB at 10,000) for no more pushes/s.
    public var maxInFlightRecords: Int = 2_000
    /// How long the pipeline may stay at `maxInFlightRecords` without polling before it pauses every partition. Not
    /// polling keeps what librdkafka prefetched; pausing purges it (it is fetched again on resume), but lets the
    /// consumer serve rebalances while the limit holds.
    public var inFlightPauseDelay: Duration = .seconds(1)
    /// Planned devices of records not yet finished (planned requests, results, receipts to write): a record is planned
    /// only once its devices fit beside the others'; one with more devices than this runs alone. Group-chat fan-out
    /// is what it bounds: `maxInFlightRecords` events of a thousand devices each would all be planned at once.
    /// Without it, 100 fan-out events of 1,000 devices peak near 390 MB; 10,000 keeps them near 130 MB, while a
    /// steady stream of small events holds fewer devices than that and never waits.
    public var maxInFlightDevices: Int = 10_000
    /// Sends in flight at once, over all providers.
    /// More would only queue inside the transport: 1,000 put the median send near 150 ms, 200 keep it near 25 ms
    /// at the same rate.
    public var maxConcurrentSends: Int = 200
    /// Sends in flight at once to one provider.
    public var maxSendsPerProvider: Int = 100
    /// Sends in flight at once to one push-service origin of a provider of many (Web Push): a slow or stalling
    /// service holds no more of its provider's sends than this. Half of `maxSendsPerProvider` by default: one origin
    /// (Chrome's, FCM's web endpoints) may carry most of a provider's sends.
    public var maxSendsPerOrigin: Int = 50
    /// The total of in-process retry delays one device may spend before going to the retry topic.
    public var retryBudget: Duration = .seconds(10)
    /// When a room's next record may start: after the previous one's in-process retries (`strict`) or
    /// after its first attempts (`firstAttempt`).
    public var roomOrder: RoomOrdering = .strict
    /// Sends of one device, over all passes through the retry topic, before it is dead-lettered.
    public var maxAttempts: Int = 8
    /// Consecutive provider-wide failures that open a provider's breaker, or a push-service origin's.
    public var providerFailureThreshold: Int = 50
    /// How often an open breaker lets one probe send through.
    public var probeInterval: Duration = .seconds(5)
    /// How long a revoked partition's in-flight records may take before it is let go anyway.
    public var revokeDrainTimeout: Duration = .seconds(30)
    /// How long in-flight work may take after SIGTERM.
    public var shutdownGracePeriod: Duration = .seconds(25)
    /// How long a shutdown waits, at least, for the source's periodic commit to cover the stored offsets before
    /// committing them directly (it also waits out what the drain left of `shutdownGracePeriod`): longer than a
    /// rebalance of workers leaving together takes, within the consumer's part of the shutdown budget.
    public var finalCommitWindow: Duration = .seconds(6)
    /// librdkafka's `max.poll.interval.ms`: the watchdog stops the worker when polling stalls this long.
    public var maxPollInterval: Duration = .seconds(300)

    /// The longest wait a provider's answer can impose on a device (its Retry-After is cut to this).
    public var maxRetryDelay: Duration = .seconds(86_400)
    /// Backoff of producing again after Kafka did not acknowledge outputs: full jitter, doubling from the base
    /// up to the cap, so a refusing broker sees a few calls a second at most, not a hot loop.
    public var produceRetryBase: Duration = .milliseconds(100)
    public var produceRetryCap: Duration = .seconds(10)

    public init(
        inputTopics: [String], retryTiers: RetryTiers, receiptsTopic: String, deadLetterTopic: String,
        group: String, worker: String
    ) {
        self.inputTopics = inputTopics
        self.retryTiers = retryTiers
        self.receiptsTopic = receiptsTopic
        self.deadLetterTopic = deadLetterTopic
        self.group = group
        self.worker = worker
    }

    /// A fresh token-invalidation guard with `invalidationMaxRatio` and `invalidationMinSends`, over 5 minutes.
    public var invalidationGuard: TokenInvalidationGuard {
        TokenInvalidationGuard(maximumRatio: invalidationMaxRatio, minimumSends: invalidationMinSends)
    }

    /// Whether records of `topic` were written by the worker itself for a later pass (one of the retry tiers):
    /// only there are the failure headers (`x-attempts`, `x-retry-due`, `x-first-failure`, `x-source-*`) believed.
    public func isRetryTopic(_ topic: String) -> Bool { retryTiers.contains(topic) }
}

/// How far a room's records keep their order (`PUSH_ROOM_ORDER`).
public enum RoomOrdering: String, Sendable, Equatable, CaseIterable {
    /// A room's next record starts once the previous one's devices are settled: delivered, failed for good,
    /// or handed to the retry topic after the in-process retries (at most `retryBudget` of delays). Only a
    /// hand-off to the retry topic lets later records of the room pass.
    case strict
    /// A room's next record starts once the previous one's first attempts answered; in-process retries run
    /// beside later records, so a retried message may arrive after later ones of its room.
    case firstAttempt = "first-attempt"
}
