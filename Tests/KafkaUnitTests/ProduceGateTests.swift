import Synchronization
import Testing

@testable import Kafka

@Suite struct ProduceGateTests {
    /// What the waves handed over so far did, in order: each wave's label.
    private final class Handed: Sendable {
        private let labels = Mutex<[String]>([])

        func queueing(_ label: String) -> ProduceGate.Queueing {
            { self.labels.withLock { $0.append(label) } }
        }

        var all: [String] { labels.withLock { $0 } }
    }

    @Test func aWaveGoesAtOnceWhenNothingIsInFlight() {
        let gate = ProduceGate()
        let handed = Handed()
        gate.enter(count: 3, handed.queueing("first"))
        #expect(handed.all == ["first"])
        #expect(gate.counts == (inFlight: 3, held: 0))
    }

    @Test func wavesWaitForEveryReportOfTheOneInFlightThenGoTogetherInOrder() {
        let gate = ProduceGate()
        let handed = Handed()
        gate.enter(count: 2, handed.queueing("first"))
        gate.enter(count: 3, handed.queueing("second"))
        gate.enter(count: 1, handed.queueing("third"))
        #expect(handed.all == ["first"])
        #expect(gate.counts == (inFlight: 2, held: 4))

        gate.reported()
        #expect(handed.all == ["first"], "one report of two: the held waves still wait")
        gate.reported()
        #expect(handed.all == ["first", "second", "third"])
        #expect(gate.counts == (inFlight: 4, held: 0))

        gate.enter(count: 1, handed.queueing("fourth"))
        for _ in 0..<4 { gate.reported() }
        #expect(handed.all == ["first", "second", "third", "fourth"])
        #expect(gate.counts == (inFlight: 1, held: 0))
        gate.reported()
        #expect(gate.counts == (inFlight: 0, held: 0))
    }

    /// A wave whose records are all refused as it is handed over (the producer closed meanwhile) reports each of them
    /// from inside its own hand-over: a wave that came while it was in flight goes then, and none is left waiting for
    /// a report that will not come.
    @Test func aWaveRefusedWhileHandedOverLetsTheNextOnesGo() {
        let gate = ProduceGate()
        let handed = Handed()
        gate.enter(count: 1, handed.queueing("first"))
        gate.enter(count: 2) {
            handed.queueing("refused")()
            gate.enter(count: 1, handed.queueing("after"))
            #expect(handed.all == ["first", "refused"], "the refused wave's two records still count as in flight")
            gate.reported()
            gate.reported()
        }
        gate.reported()
        #expect(handed.all == ["first", "refused", "after"])
        #expect(gate.counts == (inFlight: 1, held: 0))
    }

    /// Sends from many tasks at once, each report from another: every wave is handed over exactly once and the gate
    /// ends empty.
    @Test func concurrentWavesAreEachHandedOverOnce() async {
        let gate = ProduceGate()
        let handed = Handed()
        let waves = 200
        await withTaskGroup(of: Void.self) { group in
            for wave in 0..<waves {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        gate.enter(count: 1) {
                            handed.queueing("\(wave)")()
                            Task {
                                gate.reported()
                                done.resume()
                            }
                        }
                    }
                }
            }
        }
        #expect(Set(handed.all).count == waves)
        #expect(handed.all.count == waves)
        #expect(gate.counts == (inFlight: 0, held: 0))
    }

    /// Records in flight longer than the gate's limit (a slow broker) hold the next waves no longer: once the limit
    /// passed since the last wave went, the held waves go, in order, and count in flight beside the slow ones; the
    /// waves after them are held again, each for at most as long.
    @Test func wavesHeldLongerThanTheLimitGoBeforeTheSlowReports() {
        let gate = ProduceGate(maxHold: .milliseconds(100))
        let handed = Handed()
        gate.enter(count: 1, handed.queueing("slow"))
        gate.enter(count: 2, handed.queueing("held"))
        gate.enter(count: 1, handed.queueing("held too"))

        gate.releaseIfStuck(now: .now + .milliseconds(50))
        #expect(handed.all == ["slow"], "within the limit the gate holds")
        #expect(gate.earlyReleases == 0)

        gate.releaseIfStuck(now: .now + .milliseconds(150))
        #expect(handed.all == ["slow", "held", "held too"])
        #expect(gate.counts == (inFlight: 4, held: 0))
        #expect(gate.earlyReleases == 1)

        gate.enter(count: 1, handed.queueing("after"))
        #expect(handed.all.last == "held too", "records are in flight: a new wave is held again")
        gate.releaseIfStuck(now: .now + .milliseconds(50))
        #expect(handed.all.last == "held too", "and for the limit again, counted from the last release")
        gate.releaseIfStuck(now: .now + .seconds(1))
        #expect(handed.all == ["slow", "held", "held too", "after"])
        #expect(gate.earlyReleases == 2)

        for _ in 0..<5 { gate.reported() }
        #expect(gate.counts == (inFlight: 0, held: 0))
        gate.releaseIfStuck(now: .now + .seconds(1))
        #expect(gate.earlyReleases == 2, "nothing held: nothing to release")
    }
}
