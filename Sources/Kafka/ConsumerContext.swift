internal import CRdKafka
import Foundation
import KafkaTypes
import Synchronization

/// The Swift side of a consumer's librdkafka callbacks: its state and the application's handlers. Rebalances
/// become values in the state (`ConsumerState.events`), handed out by the next poll.
///
/// librdkafka gets an unretained pointer to it as the handle's opaque; the `RDKafkaClient` owning the handle
/// keeps it alive until the handle is destroyed. Every callback runs on the thread that polls the consumer.
final class ConsumerContext: KafkaLogReceiving {
    let state = Mutex(ConsumerState())
    let errorHandler: KafkaConsumer.ErrorHandler?
    let logHandler: KafkaLogHandler?

    init(errorHandler: KafkaConsumer.ErrorHandler?, logHandler: KafkaLogHandler?) {
        self.errorHandler = errorHandler
        self.logHandler = logHandler
    }

    var callbacks: RDKafkaClient.Callbacks {
        RDKafkaClient.Callbacks(
            owner: self,
            error: { handle, code, reason, opaque in
                guard let handle, let opaque else { return }
                ConsumerContext.from(opaque).reportError(handle: handle, code: code, reason: reason)
            },
            statistics: { _, json, length, opaque in
                guard let json, let opaque else { return 0 }
                let bytes = UnsafeRawBufferPointer(start: json, count: length)
                if let statistics = ConsumerStatistics.parse(Array(bytes)) {
                    ConsumerContext.from(opaque).state.withLock { state in
                        state.lag = statistics.lag.filter { state.assignment.contains($0.key) }
                        state.health = ConsumerHealth(
                            groupState: statistics.group?.state, joinState: statistics.group?.joinState,
                            brokersUp: statistics.brokersUp)
                    }
                }
                return 0  // librdkafka frees the JSON
            },
            rebalance: { handle, code, partitions, opaque in
                guard let handle, let opaque else { return }
                ConsumerContext.from(opaque).rebalance(handle: handle, code: code, partitions: partitions)
            },
            delivery: nil,
            offsetCommit: { _, code, offsets, opaque in
                guard let opaque else { return }
                // Nothing to commit is not a commit; every other answer is one success or one failure.
                guard code != RD_KAFKA_RESP_ERR__NO_OFFSET else { return }
                var committed: [TopicPartition: Int64] = [:]
                for entry in RDKafkaTopicPartitionList.entries(of: offsets)
                where entry.error == RD_KAFKA_RESP_ERR_NO_ERROR && entry.offset >= 0 {
                    committed[entry.partition] = entry.offset
                }
                ConsumerContext.from(opaque).state.withLock { state in
                    if code == RD_KAFKA_RESP_ERR_NO_ERROR {
                        state.commits.succeeded &+= 1
                    } else {
                        state.commits.failed &+= 1
                    }
                    state.confirmCommitted(committed)
                }
            }
        )
    }

    private static func from(_ opaque: UnsafeMutableRawPointer) -> ConsumerContext {
        Unmanaged<ConsumerContext>.fromOpaque(opaque).takeUnretainedValue()
    }

    private func reportError(handle: OpaquePointer, code: Int32, reason: UnsafePointer<CChar>?) {
        let error = RDKafkaClient.callbackError(handle: handle, code: code, reason: reason)
        if error.isFatal { state.withLock { $0.fatalError = $0.fatalError ?? error } }
        errorHandler?(error)
    }

    /// Reports an error the consumer queue handed out as a message; a `_FATAL` one makes the consumer unusable.
    func reportConsumeError(handle: OpaquePointer, message: UnsafeMutablePointer<rd_kafka_message_t>) {
        let raw = message.pointee
        if raw.err == RD_KAFKA_RESP_ERR__FATAL, let fatal = RDKafkaClient.fatalError(of: handle) {
            state.withLock { $0.fatalError = $0.fatalError ?? fatal }
            report(fatal)
            return
        }
        let topic = String(topicOf: raw.rkt) ?? "?"
        report(KafkaError(raw.err, context: "consuming \(TopicPartition(topic, raw.partition))"))
    }

    func report(_ error: KafkaError) {
        errorHandler?(error)
    }

    /// Serves a rebalance. An assignment is taken at once. A revoke is handed to the application as
    /// `RebalanceEvent.revoking` and left pending until `KafkaConsumer.finishRevoke` (with
    /// `RevokeHandling.acknowledged`, outside `close`); otherwise the stored offsets are committed and the
    /// partitions let go now. Lost partitions are let go at once.
    func rebalance(
        handle: OpaquePointer, code: rd_kafka_resp_err_t,
        partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
    ) {
        let changed = RDKafkaTopicPartitionList.entries(of: partitions).map(\.partition)
        let named = String(libraryText: rd_kafka_rebalance_protocol(handle))
        let cooperative = state.withLock { $0.noteRebalanceProtocol(named) }
        switch code {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            let error =
                cooperative
                ? rd_kafka_incremental_assign(handle, partitions).map { KafkaError(taking: $0) }
                : KafkaError.from(rd_kafka_assign(handle, partitions), context: "assigning partitions")
            if let error {
                report(error)
                return
            }
            state.withLock { state in
                state.assign(changed)
                // A partition given back before its revoke was finished is owned again, not revoking.
                state.revoking.subtract(changed)
                if state.revokeHandling == .acknowledged { state.events.append(.assigned(changed)) }
            }
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            let lost = rd_kafka_assignment_lost(handle) != 0
            let deferred = state.withLock { state in
                let deferred = !lost && state.revokeHandling == .acknowledged && !state.isClosed
                if state.revokeHandling == .acknowledged && !state.isClosed {
                    state.events.append(lost ? .lost(changed) : .revoking(changed))
                }
                if deferred {
                    state.revoking.formUnion(changed)
                    state.revokingEagerly = !cooperative
                }
                return deferred
            }
            if deferred { return }
            if !lost { commitStored(handle: handle, partitions: changed) }
            unassign(changed, handle: handle, cooperative: cooperative)
        default:
            report(KafkaError(code, context: "rebalance"))
            _ = rd_kafka_assign(handle, nil)
            state.withLock { state in
                let owned = state.assignment.sorted()
                state.replaceAssignment(with: [])
                if state.revokeHandling == .acknowledged && !state.isClosed { state.events.append(.lost(owned)) }
            }
        }
    }

    /// Applies the pauses, resumes and seeks asked for so far, oldest first, through `control`: each taken from the
    /// state under the lock and applied after it. A change that failed is undone in the state and reported. Runs
    /// on the thread that polls, before it polls.
    func applyFetchChanges(through control: some FetchControl) {
        while let change = state.withLock({ $0.takeFetchChange() }) {
            let (failed, error) = control.apply(change)
            guard let error else { continue }
            state.withLock { $0.undo(change, failedFor: failed) }
            report(error)
        }
    }

    /// Lets `partitions` go: forgets them, then unassigns them (the whole assignment when not `cooperative`).
    func unassign(_ partitions: [TopicPartition], handle: OpaquePointer, cooperative: Bool) {
        state.withLock { $0.unassign(partitions) }
        let list = RDKafkaTopicPartitionList(partitions)
        let error =
            cooperative
            ? rd_kafka_incremental_unassign(handle, list.pointer).map { KafkaError(taking: $0) }
            : KafkaError.from(rd_kafka_assign(handle, nil), context: "unassigning partitions")
        if let error { report(error) }
    }

    /// Commits, synchronously, the offsets the application stored for `partitions` before giving them up. Blocks
    /// its thread (the poll queue or the call queue, never the cooperative pool).
    ///
    /// A coordinator that is completing a rebalance answers `REBALANCE_IN_PROGRESS` for a moment (the mock
    /// cluster for the whole rebalance): such a commit is tried again, a few times, 200 ms apart, before
    /// the error is reported and the partitions are given up anyway.
    @discardableResult
    func commitStored(handle: OpaquePointer, partitions: [TopicPartition]) -> KafkaError? {
        let offsets = state.withLock { $0.takeStored(partitions) }
        guard !offsets.isEmpty else { return nil }
        var failure: KafkaError?
        for attempt in 1...Self.revokeCommitAttempts {
            let list = RDKafkaTopicPartitionList(offsets)
            let result = rd_kafka_commit(handle, list.pointer, 0)
            failure =
                KafkaError.from(result, context: "committing offsets of revoked partitions")
                ?? list.firstError(context: "committing offset of")
            guard let error = failure, error.code == .rebalanceInProgress, attempt < Self.revokeCommitAttempts
            else { break }
            usleep(200_000)  // a queue's thread, not the cooperative pool: blocking is fine here
        }
        if let failure { report(failure) }
        return failure
    }

    private static let revokeCommitAttempts = 5
}

extension KafkaError {
    /// The error for a librdkafka result code, `nil` for success.
    static func from(_ code: rd_kafka_resp_err_t, context: String, file: String = #fileID, line: UInt = #line)
        -> KafkaError?
    {
        code == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : KafkaError(code, context: context, file: file, line: line)
    }
}
