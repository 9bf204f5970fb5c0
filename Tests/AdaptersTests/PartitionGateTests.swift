import KafkaTypes
import Testing

@testable import Adapters

/// The fan-out source's gate: an assigned partition stays paused until its registry partition is restored, and the
/// pipeline's own pauses are never resumed by it.
@Suite struct PartitionGateTests {
    static let p0 = TopicPartition("push.fanout", 0)
    static let p1 = TopicPartition("push.fanout", 1)

    static func record(_ partition: TopicPartition, _ offset: Int64) -> KafkaRecord {
        KafkaRecord(
            topic: partition.topic, partition: partition.partition, offset: offset, key: nil, value: [], headers: [],
            timestampMilliseconds: nil)
    }

    @Test func anAssignedPartitionIsPausedUntilItsRegistryPartitionIsRestored() {
        var gate = PartitionGate()
        #expect(gate.assigned([Self.p0, Self.p1]) == [Self.p0, Self.p1])
        #expect(gate.gated == [Self.p0, Self.p1])
        #expect(gate.restored(Self.p1) == [Self.p1])
        #expect(gate.gated == [Self.p0])
        #expect(gate.restored(Self.p1) == [])
    }

    @Test func aPartitionThePipelinePausedStaysPausedWhenRestored() {
        var gate = PartitionGate()
        _ = gate.assigned([Self.p0])
        #expect(gate.pipelinePaused([Self.p0]) == [])
        #expect(gate.restored(Self.p0) == [])
        #expect(gate.pipelineResumed([Self.p0]) == [Self.p0])
    }

    @Test func thePipelineResumesNoPartitionTheGateHolds() {
        var gate = PartitionGate()
        #expect(gate.pipelinePaused([Self.p0]) == [Self.p0])
        _ = gate.assigned([Self.p1])
        #expect(gate.pipelinePaused([Self.p1]) == [])
        #expect(gate.pipelineResumed([Self.p0, Self.p1]) == [Self.p0])
        #expect(gate.restored(Self.p1) == [Self.p1])
    }

    @Test func recordsOfAGatedPartitionAreHeldBackFromTheirFirstOffset() {
        var gate = PartitionGate()
        _ = gate.assigned([Self.p0])
        let admitted = gate.admit([
            Self.record(Self.p1, 4), Self.record(Self.p0, 7), Self.record(Self.p0, 8), Self.record(Self.p1, 5),
        ])
        #expect(admitted.records.map(\.offset) == [4, 5])
        #expect(admitted.seeks.map(\.0) == [Self.p0])
        #expect(admitted.seeks.map(\.1) == [7])
    }

    @Test func aReleasedPartitionIsForgotten() {
        var gate = PartitionGate()
        _ = gate.assigned([Self.p0])
        _ = gate.pipelinePaused([Self.p0])
        gate.released([Self.p0])
        #expect(gate.gated.isEmpty)
        #expect(gate.restored(Self.p0) == [])
        #expect(gate.admit([Self.record(Self.p0, 1)]).records.count == 1)
        // Assigned again: the pipeline's old pause is gone with the old assignment.
        _ = gate.assigned([Self.p0])
        #expect(gate.restored(Self.p0) == [Self.p0])
    }
}
