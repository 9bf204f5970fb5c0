import TestSupport
import Testing

@testable import PushPipeline

/// The commit at the end of a shutdown, when the group is rebalancing because other workers leave at the same time.
@Suite(.timeLimit(.minutes(1))) struct PipelineFinalCommitTests {
    @Test func aFinalCommitRefusedDuringARebalanceIsTriedAgainAfterPollsUntilItPasses() async {
        let harness = Harness()
        harness.source.state.withLock { $0.commitRefusals = 3 }
        harness.source.add([record("m0;a", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 1 })
        let polls = harness.source.snapshot.polls
        #expect(await harness.stop(running) == .shutDown(unfinished: 0))
        let snapshot = harness.source.snapshot
        #expect(snapshot.refusedCommits == 3 && snapshot.commits == 1 && snapshot.closed)
        // Each refusal is followed by a poll: the consumer takes part in the rebalance before the next try.
        #expect(snapshot.polls >= polls + 3)
        let refusals = harness.observer.all.filter {
            if case .commitRefusedDuringRebalance = $0 { return true }
            return false
        }
        #expect(refusals.count == 3)
        #expect(!harness.observer.all.contains(.commitFailed("REBALANCE_IN_PROGRESS")))
    }

    @Test func aFinalCommitStillRefusedAfterItsWindowIsGivenUpAndTheSourceClosed() async {
        var harness = Harness()
        harness.settings.finalCommitRetryWindow = .seconds(2)
        harness.source.state.withLock { $0.commitRefusals = .max }
        let running = harness.start()
        let started = harness.clock.nowMillis()
        #expect(await harness.stop(running) == .shutDown(unfinished: 0))
        #expect(harness.clock.nowMillis() - started >= 2_000)
        let snapshot = harness.source.snapshot
        #expect(snapshot.commits == 0 && snapshot.refusedCommits > 1 && snapshot.closed)
        #expect(harness.observer.all.last { if case .commitFailed = $0 { true } else { false } } != nil)
    }
}
