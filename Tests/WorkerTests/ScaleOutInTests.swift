import Essentials
import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import TestSupport
import Testing

/// Scaling during a steady stream, as an autoscaler on lag does it: one worker, two more join, then the two leave
/// with SIGTERM. Every rebalance moves partitions between live workers; what each move sends twice is counted.
@Suite(.serialized) struct ScaleOutInTests {
    /// Where the schedule is: one worker until a moment, two more joining, the two leaving, one worker again until
    /// a moment, done.
    enum Phase: Equatable {
        case alone(until: ContinuousClock.Instant)
        case joining(deadline: ContinuousClock.Instant)
        case leaving(deadline: ContinuousClock.Instant)
        case settling(deadline: ContinuousClock.Instant)
        case after(until: ContinuousClock.Instant)
        case done
    }

    /// One worker, then three (two join), then one (the two leave with SIGTERM) while 300 one-device events a second
    /// are written in 20 rooms; each phase lasts until the group settled (every partition owned), at most 60 s. Then
    /// (first) a plain consumer runs the same schedule on the same broker (`PlainConsumerBaseline`), its figures printed
    /// beside the worker's.
    ///
    /// On Tansu (`PUSH_TEST_BROKER=tansu`), a real broker, the worker repeats no more than that plain consumer in the
    /// same run (0 in every run measured). On the mock cluster the bound is what a plain consumer gets there. The mock cluster refuses
    /// `OffsetCommit` while its group is joining or syncing, and holds each rebalance of a settled group for
    /// `session.timeout.ms` − 1 s (5 s here): a partition that changes owner then is read again from its last commit
    /// before the rebalance, whoever consumes it. A plain confluent-kafka consumer on this schedule
    /// (`deploy/local/plain_consumer_baseline.py`: cooperative-sticky, offsets stored after processing, auto-commit,
    /// a synchronous commit on revoke) had 0 to 830 duplicates per run: up to one partition's share of the stream
    /// (150 events/s) for one such hold (750), plus what was in flight. The bound is that, rounded up: 1,000.
    @Test func scalingFromOneToThreeWorkersAndBackDuringAStreamLosesNothingAndRepeatsNoMoreThanAPlainConsumer()
        async throws
    {
        let (rate, rooms, bound) = (300, 20, 1_000)
        let run = try await EndToEnd(workerEnvironment: CommitCadence.productDefault)
        // First, while the worker's group idles: on Tansu, plain consumers leaving after the worker's run hung in
        // close() for over a minute (not seen on a fresh broker).
        let baseline = try await PlainConsumerBaseline.run(on: run)
        #expect(await RollingRestartTests.waitUntilAllPartitionsOwned(by: [run.worker], within: .seconds(60)))
        var joined: [ChildProcess] = []
        var exits: [Int32?] = []
        var produced = 0
        let undelivered = Shared(0)
        var phase = Phase.alone(until: .now + .seconds(3))
        var timeline: [String] = []
        let started = ContinuousClock.now
        var tick = started
        while phase != .done {
            // A tenth of a second's events (queued, not awaited: a slow delivery report must not slow the stream),
            // then the schedule's next step, then the next tenth.
            for index in produced..<produced + rate / 10 {
                let record = KafkaProducerRecord(
                    topic: "chat.messages", key: Array("r-\(index % rooms)".utf8),
                    value: Array(EndToEnd.event(index, device: index % 2, rooms: rooms).utf8))
                try run.producer.send(record) { result in
                    if case .failure = result { undelivered.increment() }
                }
            }
            produced += rate / 10
            let now = ContinuousClock.now
            let next = Self.step(phase, now: now, run: run, joined: &joined, exits: &exits)
            if next != phase {
                timeline.append("\(Self.name(of: next)) at \(Int((now - started).fractionalSeconds)) s")
            }
            phase = next
            tick += .milliseconds(100)
            try await Task.sleep(until: max(tick, .now))
        }
        try await run.producer.flush(timeout: .seconds(60))
        #expect(undelivered.value == 0, "events the test could not write")
        let outputs = try await run.read(["push.receipts"], within: .seconds(300)) {
            ReceiptCount($0).distinct >= produced
        }
        #expect(await run.stop() == 0)
        let receipts = ReceiptCount(outputs)
        print(
            "scale 1 → 3 → 1 on \(run.broker.kind) during a stream of \(produced) events "
                + "(\(timeline.joined(separator: ", "))): lost \(produced - receipts.distinct), "
                + "duplicates \(receipts.duplicates) (bound \(bound))")
        print("beside it, \(baseline.summary)")
        #expect(baseline.lost == 0, "the plain consumer lost events: \(baseline.summary)")
        let lifecycle = Self.lifecycle(of: [run.worker] + joined)
        if run.broker.kind == .tansu {
            let repeated = receipts.repeated.joined(separator: "\n")
            #expect(
                receipts.duplicates <= baseline.duplicates,
                Comment(
                    rawValue:
                        "the worker repeated more than the plain consumer; the sends with more than one receipt:\n"
                        + "\(repeated)\nwhat the workers said of the group:\n\(lifecycle)"))
        }
        #expect(exits == [0, 0], "the leaving workers' exit statuses")
        #expect(receipts.distinct == produced)
        // A revoke-time commit the mock cluster refused leaves partitions to be read again from their previous commit,
        // which a plain consumer would repeat as well.
        let refusedRevokeCommit = ([run.worker] + joined).contains {
            MockClusterRefusedCommit.isReported(in: $0.stderr.text)
        }
        // Workers leaving together: each leaves its final commit to the periodic commit, which waits out the
        // rebalance the first to leave starts. A final commit given up would send its records again.
        let failedFinalCommit = joined.contains { $0.stderr.text.contains("final commit failed") }
        print("revoke-time commit refused by the mock cluster: \(refusedRevokeCommit)")
        #expect(
            !failedFinalCommit,
            "a leaving worker gave its final commit up; what the workers said of the group:\n\(lifecycle)")
        withKnownIssue(MockClusterRefusedCommit.comment, isIntermittent: true) {
            #expect(receipts.duplicates <= bound)
        } when: {
            refusedRevokeCommit
        }
    }

    /// Each worker's lines about its partitions, commits and shutdown, and its Kafka warnings and errors, for a
    /// failure to say what the group went through.
    static func lifecycle(of workers: [ChildProcess]) -> String {
        let messages = ["partitions", "periodic commit", "final commit", "kafka", "shutting down", "shut down"]
        return workers.enumerated().flatMap { number, worker in
            worker.stderr.lines.filter { line in messages.contains { line.contains("\"message\":\"\($0)") } }
                .map { "worker \(number + 1): \($0.prefix(400))" }
        }.joined(separator: "\n")
    }

    /// The schedule's step at `now`: starts the two workers, stops them once the group settled, and records their
    /// exit statuses; a phase past its deadline is recorded as a failure and the schedule goes on.
    static func step(
        _ phase: Phase, now: ContinuousClock.Instant, run: EndToEnd, joined: inout [ChildProcess],
        exits: inout [Int32?]
    ) -> Phase {
        switch phase {
        case .alone(let until) where now >= until:
            do {
                joined = [try run.startWorker(id: "worker-e2e-2"), try run.startWorker(id: "worker-e2e-3")]
            } catch {
                Issue.record("cannot start the joining workers: \(error)")
                return .done
            }
            return .joining(deadline: now + .seconds(60))
        case .joining(let deadline):
            // Settled once each joining worker owns partitions: a cooperative rebalance first hands a joining
            // member an empty assignment, and the partitions others give up only in the round after.
            let settled =
                joined.allSatisfy { !RollingRestartTests.partitions(of: $0).owned.isEmpty }
                && RollingRestartTests.allPartitionsOwned(by: [run.worker] + joined)
            guard settled || now >= deadline else { return phase }
            if !settled { Issue.record("the two workers did not join within 60 s") }
            for worker in joined { worker.signal(SIGTERM) }
            return .leaving(deadline: now + .seconds(60))
        case .leaving(let deadline):
            guard joined.contains(where: \.isRunning), now < deadline else {
                exits = joined.map(\.terminationStatus)
                return .settling(deadline: now + .seconds(60))
            }
            return phase
        case .settling(let deadline):
            let settled = RollingRestartTests.allPartitionsOwned(by: [run.worker])
            guard settled || now >= deadline else { return phase }
            if !settled { Issue.record("the remaining worker did not take every partition back within 60 s") }
            return .after(until: now + .seconds(2))
        case .after(let until) where now >= until:
            return .done
        case .alone, .after, .done:
            return phase
        }
    }

    static func name(of phase: Phase) -> String {
        switch phase {
        case .alone: "alone"
        case .joining: "two joining"
        case .leaving: "two leaving"
        case .settling: "one again"
        case .after: "settled"
        case .done: "done"
        }
    }
}

/// The consumer's commit cadence as the product ships it, for the tests that count what a crash or a rebalance
/// repeats (`EndToEnd` sets a shorter one for the other tests).
enum CommitCadence {
    static var productDefault: [String: String] {
        ["KAFKA_AUTO_COMMIT_INTERVAL_MS": KafkaConfiguration.consumerDefaults["auto.commit.interval.ms"] ?? ""]
    }
}

/// `deploy/local/plain_consumer_baseline.py` on a test's broker: the scaling schedule run by plain confluent-kafka
/// consumers (cooperative-sticky, offsets stored after processing, auto-commit at the worker's cadence, a synchronous
/// commit on revoke) through a topic of their own, the yardstick for what a rebalance repeats there.
struct PlainConsumerBaseline {
    let lost: Int
    let duplicates: Int
    /// The script's summary line.
    let summary: String

    /// The script failed or printed no figures.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(on run: EndToEnd) async throws -> PlainConsumerBaseline {
        let topic = "plain.baseline"
        try await run.broker.control("create-topic \(topic) \(run.partitions)")
        let bootstrap = run.workerEnvironment["KAFKA_BOOTSTRAP_SERVERS"] ?? ""
        let commitInterval = CommitCadence.productDefault["KAFKA_AUTO_COMMIT_INTERVAL_MS"] ?? ""
        let result = try await ChildProcessResult.run(
            Repository.python,
            [
                Repository.path("deploy/local/plain_consumer_baseline.py").path, "--bootstrap", bootstrap, "--topic",
                topic, "--partitions", String(run.partitions), "--commit-ms", commitInterval,
            ],
            within: .seconds(300))
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard result.status == 0, let figures = summary.firstMatch(of: /lost (\d+), duplicates (\d+)/),
            let lost = Int(figures.1), let duplicates = Int(figures.2)
        else {
            throw Failure(
                description: "plain consumer baseline: status \(result.status), \(result.stdout)\(result.stderr)")
        }
        return PlainConsumerBaseline(lost: lost, duplicates: duplicates, summary: summary)
    }
}
