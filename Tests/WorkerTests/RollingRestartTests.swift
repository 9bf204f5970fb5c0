import Essentials
import Foundation
import IntegrationSupport
import TestSupport
import Testing

/// A rolling restart of three workers as Kubernetes does it (maxSurge 1, maxUnavailable 0): start a new worker,
/// wait until it joined the group, SIGTERM an old one; measured as the time each partition had no owner, from the
/// workers' own `partitions revoked` / `partitions assigned` log lines. At the end the three new workers own every
/// partition the group ever had.
@Suite(.serialized) struct RollingRestartTests {
    @Test func aRollingRestartOfThreeWorkersLeavesNoPartitionWithoutOwnerForLong() async throws {
        // On Tansu the workers log librdkafka's group protocol, from which `departedLeaders` tells its defect.
        let tansu = TestBroker.chosen == .tansu
        let run = try await EndToEnd(workerEnvironment: tansu ? ["KAFKA_DEBUG": "cgrp", "LOG_LEVEL": "debug"] : [:])
        var workers = [run.worker, try run.startWorker(id: "worker-2"), try run.startWorker(id: "worker-3")]
        var retired: [ChildProcess] = []
        var logs: [String] { (retired + workers).map(\.stderr.text) }
        #expect(await Self.waitUntilAllPartitionsOwned(by: workers, within: .seconds(60)))
        var assigned: [Bool] = []
        var stalledBy: Set<String> = []
        for index in 0..<3 {
            let replacement = try run.startWorker(id: "worker-new-\(index)")
            assigned.append(await Self.waitUntilAssigned(replacement, within: .seconds(60)))
            workers.append(replacement)
            // A group stalled by its departed leader assigns no one: the next steps would only wait for it too.
            if assigned.last == false { stalledBy = Self.departedLeaders(logs: logs) }
            if !stalledBy.isEmpty { break }
            let old = workers.removeFirst()
            old.signal(SIGTERM)
            #expect(await old.exitStatus(within: .seconds(30)) == 0)
            retired.append(old)
        }
        let everyPartitionOwned =
            stalledBy.isEmpty
            ? await Self.waitUntilAllPartitionsOwned(by: workers, within: .seconds(60), seenBy: retired + workers)
            : false
        let gaps = Self.ownerlessSeconds(logs: logs)
        print("rolling restart: longest time without owner per partition (s): \(gaps.sorted { $0.key < $1.key })")
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { _ = await worker.exitStatus(within: .seconds(30)) }
        _ = await run.stop()
        stalledBy = Self.departedLeaders(logs: logs)
        // Tansu 0.6.0 keeps a leader that left the group while it was forming as its leader: no member is assigned
        // until Tansu happens to drop it, 44 s or more later, or never (docs/kafka.md). What follows measures Tansu.
        withKnownIssue("Tansu 0.6.0 stalled the group: its leader \(stalledBy) had left it", isIntermittent: true) {
            #expect(assigned == [true, true, true])
            #expect(everyPartitionOwned)
            #expect(gaps.keys.filter { $0.hasPrefix("chat.messages[") }.count == 2)
            // The dev broker (librdkafka's mock cluster) holds every rebalance of a settled group for
            // session.timeout.ms − 1 s (5 s here) before it assigns, and a cooperative move takes two rebalances, more
            // when a join and a leave overlap: 5, 10 or 15 s measured, and once 30 s (six rebalances in a row) in a
            // full-suite run. A real broker completes a rebalance once the members rejoin (docs/operations.md). The
            // bound is the mock cluster's worst case seen plus a margin, below the ~44 s stall this test was written
            // against.
            #expect(gaps.values.allSatisfy { $0 < 40 }, "\(gaps)")
        } when: {
            !stalledBy.isEmpty
        }
    }

    /// Log lines of one message, with their time and `kafka.partitions`.
    static func events(_ message: String, in log: String) -> [(time: Date, partitions: [String])] {
        log.split(separator: "\n").compactMap { line in
            guard line.contains(message),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["message"] as? String == message, let stamp = object["timestamp"] as? String,
                let time = RFC3339.parse(stamp),
                let partitions = (object["metadata"] as? [String: Any])?["kafka.partitions"] as? String
            else { return nil }
            return (time, partitions.split(separator: ",").map(String.init))
        }
    }

    /// Per partition, the longest interval between its revocation by one worker and its next assignment.
    static func ownerlessSeconds(logs: [String]) -> [String: Double] {
        var timeline: [(time: Date, assigned: Bool, partition: String)] = []
        for log in logs {
            for event in events("partitions assigned", in: log) {
                timeline += event.partitions.map { (event.time, true, $0) }
            }
            for event in events("partitions revoked", in: log) {
                timeline += event.partitions.map { (event.time, false, $0) }
            }
        }
        var revokedAt: [String: Date] = [:]
        var longest: [String: Double] = [:]
        for event in timeline.sorted(by: { $0.time < $1.time }) {
            if event.assigned {
                let gap = revokedAt.removeValue(forKey: event.partition).map { event.time.timeIntervalSince($0) } ?? 0
                longest[event.partition] = max(longest[event.partition] ?? 0, gap)
            } else {
                revokedAt[event.partition] = event.time
            }
        }
        return longest
    }

    static func waitUntilAssigned(_ worker: ChildProcess, within limit: Duration) async -> Bool {
        await eventually(within: limit, every: .milliseconds(200)) {
            !events("partitions assigned", in: worker.stderr.text).isEmpty
        }
    }

    /// Waits until `allPartitionsOwned(by: workers, seenBy: seers)`.
    static func waitUntilAllPartitionsOwned(
        by workers: [ChildProcess], within limit: Duration, seenBy seers: [ChildProcess]? = nil
    ) async -> Bool {
        await eventually(within: limit, every: .milliseconds(200)) { allPartitionsOwned(by: workers, seenBy: seers) }
    }

    /// Whether `workers` together own every partition any of `seers` (`workers` unless given) was ever assigned
    /// (input and retry topics), with at least the input topic's two, by their logs so far.
    static func allPartitionsOwned(by workers: [ChildProcess], seenBy seers: [ChildProcess]? = nil) -> Bool {
        let owned = workers.reduce(into: Set<String>()) { $0.formUnion(partitions(of: $1).owned) }
        let seen = (seers ?? workers).reduce(into: Set<String>()) { $0.formUnion(partitions(of: $1).seen) }
        return owned.count >= 2 && owned == seen
    }

    /// The group members that left (their own `LeaveGroup` answer logged) and that a `JoinGroup` answer logged after
    /// that still names as the group's leader, by librdkafka's `debug=cgrp` lines in the workers' `logs`. While a
    /// broker does so, no rebalance completes: only the leader's `SyncGroup` would complete it.
    static func departedLeaders(logs: [String]) -> Set<String> {
        var leftAt: [String: Date] = [:]
        var leaders: [(time: Date, member: String)] = []
        for log in logs {
            var member: String?
            for (time, text) in librdkafkaLines(in: log) {
                if let id = text.firstMatch(of: /my MemberId ([^ ,]+)/)?.output.1 { member = String(id) }
                if let leader = text.firstMatch(of: /JoinGroup response: .*LeaderId ([^ ,]+)/)?.output.1 {
                    leaders.append((time, String(leader)))
                }
                if text.contains("LeaveGroup response received"), let member { leftAt[member] = time }
            }
        }
        return Set(leaders.filter { leader in leftAt[leader.member].map { leader.time > $0 } ?? false }.map(\.member))
    }

    /// The text and time of each librdkafka log line the worker forwarded (`kafka.log`).
    static func librdkafkaLines(in log: String) -> [(time: Date, text: String)] {
        log.split(separator: "\n").compactMap { line in
            guard line.contains("\"kafka.log\""),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let stamp = object["timestamp"] as? String, let time = RFC3339.parse(stamp),
                let text = (object["metadata"] as? [String: Any])?["kafka.log"] as? String
            else { return nil }
            return (time, text)
        }
    }

    /// The partitions `worker` owns by its log so far, and every partition it was ever assigned.
    static func partitions(of worker: ChildProcess) -> (owned: Set<String>, seen: Set<String>) {
        var timeline: [(Date, Bool, [String])] = []
        timeline += events("partitions assigned", in: worker.stderr.text).map { ($0.time, true, $0.partitions) }
        timeline += events("partitions revoked", in: worker.stderr.text).map { ($0.time, false, $0.partitions) }
        var owned: Set<String> = []
        var seen: Set<String> = []
        for (_, assigned, partitions) in timeline.sorted(by: { $0.0 < $1.0 }) {
            if assigned { owned.formUnion(partitions) } else { owned.subtract(partitions) }
            seen.formUnion(partitions)
        }
        return (owned, seen)
    }
}
