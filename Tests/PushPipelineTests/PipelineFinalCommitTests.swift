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
        // Workers leaving together: a rebalance holds the periodic commit for the next five polls.
        let shutdown = await Self.shutDown(harness, holdingPeriodicCommitsFor: 5)
        #expect(shutdown.stop == .shutDown(unfinished: 0))
        let snapshot = harness.source.snapshot
        // The pipeline polled through the rebalance, the periodic commit covered the offset, nothing was sent
        // directly (a direct commit during the consumer's rejoin would be answered for an old generation).
        #expect(shutdown.polls >= 6)
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
        // About 10 s of polls (100 ms each) in which the group rebalances.
        let shutdown = await Self.shutDown(harness, holdingPeriodicCommitsFor: 100)
        #expect(shutdown.stop == .shutDown(unfinished: 0))
        #expect(shutdown.millis >= 9_000 && shutdown.millis < 12_000, "waited \(shutdown.millis) ms")
        let snapshot = harness.source.snapshot
        #expect(snapshot.committed == snapshot.stored && snapshot.commits == 0 && snapshot.closed)
        #expect(!harness.observer.all.contains(.finalCommitWaitExpired))
    }

    @Test func storedOffsetsThePeriodicCommitLeavesPastTheWindowAreCommittedDirectly() async {
        var harness = Harness()
        harness.settings.finalCommitWindow = .seconds(2)
        harness.settings.shutdownGracePeriod = .seconds(1)
        let shutdown = await Self.shutDown(harness, holdingPeriodicCommitsFor: .max)
        #expect(shutdown.stop == .shutDown(unfinished: 0))
        #expect(shutdown.millis >= 2_000)
        let snapshot = harness.source.snapshot
        #expect(snapshot.committed == snapshot.stored && snapshot.commits == 1 && snapshot.closed)
        #expect(harness.observer.all.contains(.finalCommitWaitExpired))
    }

    @Test func aSourceThatDoesNotCommitPeriodicallyIsCommittedDirectlyWithoutWaiting() async {
        let harness = Harness()
        let shutdown = await Self.shutDown(harness, holdingPeriodicCommitsFor: nil)
        #expect(shutdown.stop == .shutDown(unfinished: 0))
        #expect(shutdown.millis < 1_000)
        let snapshot = harness.source.snapshot
        #expect(snapshot.committed == snapshot.stored && snapshot.commits == 1 && snapshot.closed)
        #expect(!harness.observer.all.contains(.finalCommitWaitExpired))
    }

    /// How a shutdown went: how it stopped, how long it took on the harness' clock, and how many polls it made.
    struct Shutdown {
        let stop: PipelineStop
        let millis: Int64
        let polls: Int
    }

    /// Starts `harness` on one record and, once its offset is stored, shuts it down. Its source commits periodically
    /// unless `held` is nil, the periodic commit held back (a rebalance) for the next `held` polls.
    static func shutDown(_ harness: Harness, holdingPeriodicCommitsFor held: Int?) async -> Shutdown {
        harness.source.state.withLock { $0.periodicCommits = held != nil }
        harness.source.add([record("m0;a", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 1 })
        harness.source.state.withLock { $0.periodicCommitsHeld = held ?? 0 }
        let (started, polls) = (harness.clock.nowMillis(), harness.source.snapshot.polls)
        let stop = await harness.stop(running)
        return Shutdown(
            stop: stop, millis: harness.clock.nowMillis() - started, polls: harness.source.snapshot.polls - polls)
    }
}
