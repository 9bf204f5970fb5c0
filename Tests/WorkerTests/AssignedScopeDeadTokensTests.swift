import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import Testing

/// A worker in the `assigned` registry scope unsubscribes a token the provider calls dead, as in `all`: the tombstone
/// of its key, found in the registry partition the worker holds, written to that key's partition.
@Suite(.serialized) struct AssignedScopeDeadTokensTests {
    @Test func aDeadTokensKeyIsTombstonedInItsClientsPartition() async throws {
        let run = try await AssignedScopeRun(extraEnvironment: ["PUSH_REGISTRY_PARTITIONING": "client"])
        let dead = 17
        _ = try await run.simulator.control(
            "POST", "/control/fcm-unregister", body: "{\"tokens\": [\"\(AssignedScopeRun.token(dead))\"]}")
        try await run.writeRegistry()
        try run.startWorker("worker-dead-tokens")
        try await run.sendMessage("m-dead", from: "c-1", to: ["c-\(dead)", "c-18"])
        let receipts = try await run.receipts(count: 2, within: .seconds(90))
        let partition = AssignedScopeRun.partition(of: "c-\(dead)")
        let records = try await readRecords(
            run.kafka, topic: "push.devices", partitions: [partition],
            count: AssignedScopeRun.clients.filter { AssignedScopeRun.partition(of: $0) == partition }.count + 1,
            within: .seconds(30))
        let statuses = await run.stop()
        #expect(receipts.lines == ["m-dead c-\(dead) invalid_token UNREGISTERED", "m-dead c-18 delivered -"])
        let tombstones = records.filter { $0.value.isEmpty }
        #expect(tombstones.map { String(decoding: $0.key ?? [], as: UTF8.self) } == ["SampleApp/c-\(dead)/fcm/D1"])
        #expect(statuses.values.allSatisfy { $0 == 0 })
    }
}
