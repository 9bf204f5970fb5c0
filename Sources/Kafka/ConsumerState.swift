import KafkaTypes

/// What a consumer knows about its partitions, kept under one lock by `ConsumerContext`.
struct ConsumerState: Sendable {
    /// Partitions currently owned (group assignment or explicit assignment).
    var assignment: Set<TopicPartition> = []
    /// Partitions paused by the application (a subset of `assignment`).
    var paused: Set<TopicPartition> = []
    /// Owned partitions the group revoked, waiting for `finishRevoke` (a subset of `assignment`): none of their
    /// records is handed out, and they are neither paused nor resumed.
    var revoking: Set<TopicPartition> = []
    /// Whether the revoke waiting for `finishRevoke` came from an eager (not cooperative) rebalance.
    var revokingEagerly = false
    /// Rebalances not yet handed out by a poll (with `RevokeHandling.acknowledged` only).
    var events: [RebalanceEvent] = []
    /// Who lets revoked partitions go, as `subscribe` was told.
    var revokeHandling = RevokeHandling.immediate
    /// The next offset to read, per partition, as last stored by the application and not committed yet.
    var stored: [TopicPartition: Int64] = [:]
    /// Lag per partition from the latest statistics.
    var lag: [TopicPartition: Int64] = [:]
    /// Partitions assigned at a timestamp: their records older than it are skipped.
    var timestampFloor: [TopicPartition: Int64] = [:]
    /// The fatal error that made the consumer unusable, if one was raised.
    var fatalError: KafkaError?
    /// Whether the group's rebalances are cooperative, as librdkafka last named their protocol.
    var cooperativeRebalances = false
    /// Whether `close` has run.
    var isClosed = false
    /// Group and broker state from the latest statistics; nil before the first.
    var health: ConsumerHealth?
    /// Commit answers so far.
    var commits = CommitCounts()
    /// Per partition, the offset at which the consumer last reached its end (`enable.partition.eof=true` only):
    /// past any transaction marker, which is never handed out as a record.
    var ends: [TopicPartition: Int64] = [:]
    /// Pauses, resumes and seeks asked for and not yet applied by the poll loop, oldest first. `paused` already
    /// counts the pauses and resumes among them.
    var fetchChanges: [FetchChange] = []

    /// Notes the rebalance protocol librdkafka names (`COOPERATIVE`, `EAGER`, `NONE`) and returns whether it is
    /// cooperative; `nil` (librdkafka 2.16 names none while the consumer closes) keeps the protocol last named.
    mutating func noteRebalanceProtocol(_ name: String?) -> Bool {
        if let name { cooperativeRebalances = name == "COOPERATIVE" }
        return cooperativeRebalances
    }

    mutating func assign(_ partitions: [TopicPartition]) {
        assignment.formUnion(partitions)
    }

    mutating func unassign(_ partitions: [TopicPartition]) {
        let gone = Set(partitions)
        fetchChanges = fetchChanges.compactMap { $0.without(gone) }
        assignment.subtract(partitions)
        paused.subtract(partitions)
        revoking.subtract(partitions)
        for partition in partitions {
            stored[partition] = nil
            lag[partition] = nil
            timestampFloor[partition] = nil
        }
    }

    mutating func replaceAssignment(with partitions: [TopicPartition]) {
        unassign(Array(assignment))
        assign(partitions)
    }

    /// Whether a poll may hand `record` out: its partition is owned, not revoking, and the record is not older
    /// than the timestamp its partition was assigned at.
    func mayHandOut(_ record: KafkaRecord) -> Bool {
        let partition = record.topicPartition
        return assignment.contains(partition) && !revoking.contains(partition) && !isBeforeTimestampFloor(record)
    }

    /// Whether `record` is older than the timestamp its partition was assigned at.
    func isBeforeTimestampFloor(_ record: KafkaRecord) -> Bool {
        guard let floor = timestampFloor[record.topicPartition], let timestamp = record.timestampMilliseconds else {
            return false
        }
        return timestamp < floor
    }

    /// The partitions of `requested` that are owned and not paused yet; marks them paused and queues their pause.
    @discardableResult
    mutating func pause(_ requested: [TopicPartition]) -> [TopicPartition] {
        let toPause = Set(requested).intersection(assignment).subtracting(paused).subtracting(revoking).sorted()
        paused.formUnion(toPause)
        if !toPause.isEmpty { fetchChanges.append(.pause(toPause)) }
        return toPause
    }

    /// The partitions of `requested` that are paused; marks them resumed and queues their resume. Resuming a
    /// partition that is not paused would rewind it in librdkafka 2.0.2, so others are left alone.
    @discardableResult
    mutating func resume(_ requested: [TopicPartition]) -> [TopicPartition] {
        let toResume = Set(requested).intersection(paused).subtracting(revoking).sorted()
        paused.subtract(toResume)
        if !toResume.isEmpty { fetchChanges.append(.resume(toResume)) }
        return toResume
    }

    /// Queues a seek of `partition` to `offset`, if it is owned.
    mutating func seek(_ partition: TopicPartition, to offset: Int64) {
        if assignment.contains(partition) { fetchChanges.append(.seek(partition, offset)) }
    }

    /// The oldest fetch change not yet applied, taken out of the queue.
    mutating func takeFetchChange() -> FetchChange? {
        fetchChanges.isEmpty ? nil : fetchChanges.removeFirst()
    }

    /// Puts the state back where librdkafka left it when `change` failed for `failed`: a pause that failed leaves
    /// the partitions fetching (and a resume of theirs queued later would rewind them: it goes), a resume that
    /// failed leaves them paused.
    mutating func undo(_ change: FetchChange, failedFor failed: [TopicPartition]) {
        switch change {
        case .pause:
            let fetching = Set(failed)
            paused.subtract(fetching)
            fetchChanges = fetchChanges.compactMap { queued in
                guard case .resume = queued else { return queued }
                return queued.without(fetching)
            }
        case .resume:
            paused.formUnion(Set(failed).intersection(assignment))
        case .seek:
            break
        }
    }

    /// Puts back offsets whose commit failed, unless the partition was lost or a newer offset was stored since.
    mutating func restoreStored(_ offsets: [TopicPartition: Int64]) {
        for (partition, offset) in offsets where assignment.contains(partition) && stored[partition] == nil {
            stored[partition] = offset
        }
    }

    /// Forgets the stored offsets that a commit answered for `committed` covers: whoever committed them (the
    /// periodic commit or an explicit one), they need no commit any more.
    mutating func confirmCommitted(_ committed: [TopicPartition: Int64]) {
        for (partition, offset) in committed {
            if let pending = stored[partition], pending <= offset { stored[partition] = nil }
        }
    }

    /// The stored offsets of `partitions`, removed from the pending set (they are about to be committed).
    mutating func takeStored(_ partitions: [TopicPartition]) -> [TopicPartition: Int64] {
        var taken: [TopicPartition: Int64] = [:]
        for partition in partitions {
            if let offset = stored.removeValue(forKey: partition) { taken[partition] = offset }
        }
        return taken
    }
}
