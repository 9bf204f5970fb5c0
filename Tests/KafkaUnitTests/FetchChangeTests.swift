import Dispatch
import KafkaTypes
import Synchronization
import Testing

@testable import Kafka

/// A consumer handle whose pause blocks until the test lets it go, as librdkafka's does until its fetchers took the
/// change; it records every change it is given. A wait that lasts 10 s is taken for a deadlock and ends (recorded), so
/// that a regression fails instead of hanging.
private final class BlockingFetchControl: FetchControl {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    let applied = Mutex<[FetchChange]>([])
    let waitsGivenUp = Atomic(0)

    func apply(_ change: FetchChange) -> (failed: [TopicPartition], error: KafkaError?) {
        if case .pause = change {
            entered.signal()
            if released.wait(timeout: .now() + 10) == .timedOut { waitsGivenUp.add(1, ordering: .relaxed) }
        }
        applied.withLock { $0.append(change) }
        return ([], nil)
    }

    /// Lets one pause through (now or when it comes).
    func release() {
        released.signal()
    }

    /// Waits until a pause has entered the handle; false after 10 s.
    func waitForPause() -> Bool {
        entered.wait(timeout: .now() + 10) == .success
    }
}

/// A handle that refuses every change for the partitions it is given.
private struct RefusingFetchControl: FetchControl {
    let refused: Set<TopicPartition>

    func apply(_ change: FetchChange) -> (failed: [TopicPartition], error: KafkaError?) {
        let failed = change.partitions.filter(refused.contains)
        return (failed, failed.isEmpty ? nil : KafkaError(code: .state, message: "refused"))
    }
}

@Suite struct FetchChangeTests {
    let first = TopicPartition("t", 0)
    let second = TopicPartition("t", 1)

    /// The pipeline pauses a partition while the poll thread is about to serve a rebalance, and librdkafka's pause
    /// waits for that poll thread. The pause returns at once, having called nothing (it is applied by the poll
    /// thread before it polls, after the rebalance). And while the poll thread blocks in a pause, the application's
    /// calls (pauses, resumes, seeks, the state) are answered: nothing it does waits for librdkafka.
    @Test func aPauseWhileThePollThreadServesARebalanceNeitherDeadlocksNorStallsCompletions() async throws {
        let handle = BlockingFetchControl()
        let consumer = try KafkaConsumer(
            configuration: KafkaConfiguration(["bootstrap.servers": "127.0.0.1:1", "group.id": "fetch-changes"]),
            errorHandler: nil, logHandler: nil, fetchControl: handle)
        await consumer.serveAssignmentForTesting([first])

        try consumer.pause([first])
        #expect(handle.applied.withLock { $0.isEmpty })
        #expect(consumer.pausedPartitions == [first])
        await consumer.serveAssignmentForTesting([second])
        handle.release()  // the rebalance was served: librdkafka's pause can complete now
        _ = try await consumer.pollWithRebalances(maxRecords: 1, timeout: .zero)
        #expect(handle.waitForPause())
        #expect(handle.applied.withLock { $0 } == [.pause([first])])
        #expect(consumer.assignment == [first, second])

        try consumer.pause([second])
        let poll = Task { try await consumer.pollWithRebalances(maxRecords: 1, timeout: .zero) }
        #expect(handle.waitForPause())
        // The poll thread is inside librdkafka's pause; the application goes on.
        try consumer.resume([first])
        try consumer.seek(first, to: 7)
        #expect(consumer.pausedPartitions == [second])
        handle.release()
        _ = try await poll.value
        #expect(
            handle.applied.withLock { $0 } == [.pause([first]), .pause([second]), .resume([first]), .seek(first, 7)])
        #expect(handle.waitsGivenUp.load(ordering: .relaxed) == 0)
    }

    @Test func changesAreQueuedInOrderAndForgottenWithTheirPartition() {
        var state = ConsumerState()
        state.assign([first, second])
        state.pause([first, second])
        state.seek(first, to: 3)
        state.seek(TopicPartition("t", 9), to: 1)  // not owned: nothing to seek
        state.resume([second])
        #expect(state.fetchChanges == [.pause([first, second]), .seek(first, 3), .resume([second])])
        state.unassign([first])
        #expect(state.takeFetchChange() == .pause([second]))
        #expect(state.takeFetchChange() == .resume([second]))
        #expect(state.takeFetchChange() == nil)
    }

    /// A pause librdkafka refused leaves the partition fetching: it is not counted as paused, and a resume queued
    /// after it is dropped (resuming a partition that is not paused rewinds it in librdkafka 2.0.2). A refused resume
    /// leaves the partition paused. The error goes to the error handler.
    @Test func aRefusedChangeIsUndoneAndReported() {
        let reported = Mutex<[KafkaError]>([])
        let context = ConsumerContext(
            errorHandler: { error in reported.withLock { $0.append(error) } }, logHandler: nil)
        context.state.withLock { state in
            state.assign([first, second])
            state.pause([first, second])
            state.resume([first, second])
            state.pause([second])
        }
        context.applyFetchChanges(through: RefusingFetchControl(refused: [first]))
        context.state.withLock { state in
            #expect(state.paused == [second])
            #expect(state.fetchChanges.isEmpty)
        }
        #expect(reported.withLock { $0.count } == 1)

        context.state.withLock { _ = $0.resume([second]) }
        context.applyFetchChanges(through: RefusingFetchControl(refused: [second]))
        #expect(context.state.withLock { $0.paused } == [second])
        #expect(reported.withLock { $0.count } == 2)
    }
}
