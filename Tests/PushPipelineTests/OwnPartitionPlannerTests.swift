import KafkaTypes
import PushCore
import TestSupport
import Testing

@testable import PushPipeline

/// The fan-out stage's partition check: a fan-out record is resolved only when its key and its clients belong to the
/// partition it was read from; any other is dead-lettered `misplaced_fanout` and its partition goes on.
@Suite struct OwnPartitionPlannerTests {
    static let partitions = 4

    /// A device name of `FakePlanner` whose client (`u-<name>` of the default app) is in `partition`.
    static func device(in partition: Int32) -> String {
        (0..<200).map { "d\($0)" }.first { client(of: $0) == partition } ?? ""
    }

    static func client(of device: String) -> Int32 {
        ClientPartitioner.partition(of: ClientKey(appID: "", clientID: "u-\(device)"), partitions: partitions)
    }

    static func key(of device: String) -> String { ClientKey(appID: "", clientID: "u-\(device)").description }

    @Test func misplacedFanoutRecordsAreDeadLetteredAndTheirPartitionGoesOn() async {
        let mine = Self.device(in: 0)
        let other = Self.device(in: 1)
        var harness = Harness()
        harness.settings.inputTopics = ["chat"]
        harness.source.add([
            record("m0;\(mine)", offset: 0, key: Self.key(of: mine)),
            // Read from partition 0, keyed for partition 1.
            record("m1;\(other)", offset: 1, key: Self.key(of: other)),
            // Keyed for partition 0, resolving a client of partition 1.
            record("m2;\(other)", offset: 2, key: Self.key(of: mine)),
            record("m3;\(mine)", offset: 3, key: nil),
            record("m4;\(mine)", offset: 4, key: Self.key(of: mine)),
        ])
        let running = harness.start(planner: OwnPartitionPlanner(inner: FakePlanner(), partitions: Self.partitions))
        #expect(await harness.advancing { harness.stored() == 5 })
        _ = await harness.stop(running)
        #expect(harness.sender.sent.sorted() == ["m0/\(mine)", "m4/\(mine)"])
        // Records of other keys run side by side: their dead letters in any order.
        let deadLetters = harness.sink.records(on: "dlq").sorted { $0.text < $1.text }
        #expect(deadLetters.map(\.text) == ["m1;\(other)", "m2;\(other)", "m3;\(mine)"])
        #expect(deadLetters.allSatisfy { $0.header("x-dlq-reason") == "misplaced_fanout" })
        #expect(
            deadLetters.map { $0.header("x-dlq-error") ?? "" } == [
                "a fan-out record of partition 0 has a key of partition 1",
                "a fan-out record of partition 0 resolves client /u-\(other) of partition 1",
                "a fan-out record of partition 0 has no key",
            ])
    }

    @Test func aBareValueIsPlannedAsTheInnerPlannerPlansIt() {
        let other = Self.device(in: 1)
        let planner = OwnPartitionPlanner(inner: FakePlanner(), partitions: Self.partitions)
        let planned = try? planner.prepare(Array("m;\(other)".utf8)).plan(nowMillis: 0).get()
        #expect(planned?.devices.map(\.target.userId) == ["u-\(other)"])
    }
}
