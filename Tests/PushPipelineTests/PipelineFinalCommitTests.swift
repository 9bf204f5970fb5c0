import Essentials
import Synchronization
import TestSupport
import Testing

@testable import PushPipeline

/// The commit at the end of a shutdown, when the group may be rebalancing because other workers leave at the same
/// time.
@Suite(.timeLimit(.minutes(1))) struct PipelineFinalCommitTests {
    @Test func aShutdownLeavesTheFinalCommitToThePeriodicCommitWhichWaitsARebalanceOut() async {
        let harness = Harness()
        harness.source.state.withLock { $0.periodicCommits = true }
        harness.source.add([record("m0;a", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 1 })
        // Workers leaving together: a rebalance holds the periodic commit for the next five polls.
        harness.source.state.withLock { $0.periodicCommitsHeld = 5 }
        let polls = harness.source.snapshot.polls
        #expect(await harness.stop(running) == .shutDown(unfinished: 0))
        let snapshot = harness.source.snapshot
        // The pipeline polled through the rebalance, the periodic commit covered the offset, nothing was sent
        // directly (a direct commit during the consumer's rejoin would be answered for an old generation).
        #expect(snapshot.polls >= polls + 6)
        #expect(snapshot.committed == snapshot.stored && snapshot.commits == 0 && snapshot.closed)
        #expect(!harness.observer.all.contains(.finalCommitWaitExpired))
        #expect(!harness.observer.all.contains { if case .commitFailed = $0 { true } else { false } })
    }

    /// Rebalances can follow one another past `finalCommitWindow` (the mock cluster held two for 10 s in all, after
    /// which a direct commit was answered for the ended generation): a drain that ended early leaves the rest of the
    /// grace period to the periodic commit.
    @Test func theRestOfTheGracePeriodIsLeftToThePeriodicCommit() async {
        var harness = Harness()
        harness.settings.finalCommitWindow = .seconds(2)
        harness.settings.shutdownGracePeriod = .seconds(12)
        harness.source.state.withLock { $0.periodicCommits = true }
        harness.source.add([record("m0;a", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 1 })
        // About 10 s of polls (100 ms each) in which the group rebalances.
        harness.source.state.withLock { $0.periodicCommitsHeld = 100 }
        let started = harness.clock.nowMillis()
        #expect(await harness.stop(running) == .shutDown(unfinished: 0))
        let waited = harness.clock.nowMillis() - started
        #expect(waited >= 9_000 && waited < 12_000, "waited \(waited) ms")
        let snapshot = harness.source.snapshot
        #expect(snapshot.committed == snapshot.stored && snapshot.commits == 0 && snapshot.closed)
        #expect(!harness.observer.all.contains(.finalCommitWaitExpired))
    }

    @Test func storedOffsetsThePeriodicCommitLeavesPastTheWindowAreCommittedDirectly() async {
        var harness = Harness()
        harness.settings.finalCommitWindow = .seconds(2)
        harness.settings.shutdownGracePeriod = .seconds(1)
        harness.source.state.withLock { $0.periodicCommits = true }
        harness.source.add([record("m0;a", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 1 })
        harness.source.state.withLock { $0.periodicCommitsHeld = .max }
        let started = harness.clock.nowMillis()
        #expect(await harness.stop(running) == .shutDown(unfinished: 0))
        #expect(harness.clock.nowMillis() - started >= 2_000)
        let snapshot = harness.source.snapshot
        #expect(snapshot.committed == snapshot.stored && snapshot.commits == 1 && snapshot.closed)
        #expect(harness.observer.all.contains(.finalCommitWaitExpired))
    }

    @Test func aSourceThatDoesNotCommitPeriodicallyIsCommittedDirectlyWithoutWaiting() async {
        let harness = Harness()
        harness.source.add([record("m0;a", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 1 })
        let started = harness.clock.nowMillis()
        #expect(await harness.stop(running) == .shutDown(unfinished: 0))
        #expect(harness.clock.nowMillis() - started < 1_000)
        let snapshot = harness.source.snapshot
        #expect(snapshot.committed == snapshot.stored && snapshot.commits == 1 && snapshot.closed)
        #expect(!harness.observer.all.contains(.finalCommitWaitExpired))
    }
}
