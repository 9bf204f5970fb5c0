import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import PushPipeline
import Testing

/// A worker in the `assigned` registry scope unsubscribes a token the provider calls dead, as in `all`: the tombstone
/// of its key, found in the registry partition the worker holds, written to that key's partition; or, found by a retry
/// record's send on a worker that does not hold the client's partition, by the worker that holds it.
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

    @Test func aRetryRecordsDeadTokensAreTombstonedByTheWorkersHoldingTheirClientsPartitions() async throws {
        let run = try await AssignedScopeRun(extraEnvironment: ["PUSH_REGISTRY_PARTITIONING": "client"])
        // One client per partition: whichever worker sends the retry record, the other holds some of them.
        let dead = (0..<Int32(AssignedScopeRun.partitions)).compactMap { partition in
            AssignedScopeRun.clients.indices.first {
                AssignedScopeRun.partition(of: AssignedScopeRun.clients[$0]) == partition
            }
        }
        #expect(dead.count == AssignedScopeRun.partitions)
        let tokens = dead.map { "\"\(AssignedScopeRun.token($0))\"" }.joined(separator: ", ")
        _ = try await run.simulator.control("POST", "/control/fcm-unregister", body: "{\"tokens\": [\(tokens)]}")
        try await run.writeRegistry()
        for id in ["worker-a", "worker-b"] { try run.startWorker(id) }
        // Both hold registry partitions: the group's assignment is split.
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline,
            !run.workers.values.allSatisfy({ $0.stderr.contains("registry partition restored") })
        {
            try await Task.sleep(for: .milliseconds(200))
        }
        let recipients = dead.map { index in
            #"{"userId": "c-\#(index)", "devices": [{"platform": "fcm", "token": "\#(AssignedScopeRun.token(index))"}]}"#
        }
        let retry =
            #"{"id": "m-retry", "type": "text", "appID": "SampleApp", "room": {"id": "room-a"}, "sender": {"id": "c-999"}, "content": "hello", "recipients": [\#(recipients.joined(separator: ", "))]}"#
        _ = try await run.producer.send(
            KafkaProducerRecord(
                topic: RetryTiers(base: "push.retry").topics[0], key: Array("room-a".utf8), value: Array(retry.utf8),
                headers: [KafkaHeader(name: "x-attempts", text: "1")]))
        let receipts = try await run.receipts(count: dead.count, within: .seconds(90))
        // Every device record, and a tombstone for each dead key in its client's partition.
        let records = try await readRecords(
            run.kafka, topic: "push.devices", count: AssignedScopeRun.clients.count + dead.count, within: .seconds(60))
        let requests = try await readRecords(run.kafka, topic: "push.fanout", count: 1, within: .seconds(10))
        let statuses = await run.stop()

        #expect(receipts.lines == Set(dead.map { "m-retry c-\($0) invalid_token UNREGISTERED" }))
        let tombstones = records.filter { $0.value.isEmpty }
        #expect(
            Set(tombstones.map { String(decoding: $0.key ?? [], as: UTF8.self) })
                == Set(dead.map { "SampleApp/c-\($0)/fcm/D1" }))
        for tombstone in tombstones {
            let client = String(decoding: tombstone.key ?? [], as: UTF8.self).split(separator: "/")[1]
            #expect(tombstone.partition == AssignedScopeRun.partition(of: String(client)))
        }
        // The worker that sent them routed the others' dead tokens through the fan-out topic.
        #expect(!requests.isEmpty)
        #expect(requests.allSatisfy { $0.headers.text("x-fanout-control") == "unsubscribe" })
        #expect(statuses.values.allSatisfy { $0 == 0 })
    }
}
