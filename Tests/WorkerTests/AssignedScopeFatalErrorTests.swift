import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import Testing

/// The fan-out stage's outputs go through the worker's one producer: a fatal error of it while the fan-out stage
/// produces stops the worker as one in the input stage does (exit 1, `kafka client failed fatally, stopping`), with
/// nothing of the fan-out committed. Mock cluster only: its fault injection makes the error.
@Suite(.serialized) struct AssignedScopeFatalErrorTests {
    @Test func aFatalProducerErrorOfTheFanoutStageStopsTheWorkerWithExitOneAndNothingCommitted() async throws {
        let run = try await AssignedScopeRun()
        try await run.writeRegistry()
        // Fan-out records as the input stage writes them (its message narrowed to one client, keyed by the client, in
        // the client's partition): with no input, the worker's first produce request is the fan-out stage's receipts.
        for client in ["c-1", "c-2", "c-4"] {
            let record =
                #"{"_id": "m-\#(client)", "message": "hello", "room": "room-a", "sender": {"_id": "c-0", "nickname": "S"}, "messageType": "text", "appID": "SampleApp", "pushToClients": ["\#(client)"]}"#
            _ = try await run.producer.send(
                KafkaProducerRecord(
                    topic: "push.fanout", partition: AssignedScopeRun.partition(of: client),
                    key: ClientPartitioner.clientKey(appID: "SampleApp", clientID: client), value: Array(record.utf8)))
        }
        // That request fails with a sequence error: librdkafka's idempotent producer raises a fatal error.
        try await run.broker.control("request-errors Produce 1 OUT_OF_ORDER_SEQUENCE_NUMBER")
        try run.startWorker("worker-fatal")
        let worker = try #require(run.workers["worker-fatal"])
        let status = await worker.exitStatus(within: .seconds(90))
        let checker = try KafkaConsumer(
            configuration: run.kafka.merging(KafkaConfiguration(["group.id": "push-worker.fanout"])))
        let committed = try await checker.committedOffsets(
            of: (0..<Int32(AssignedScopeRun.partitions)).map { TopicPartition("push.fanout", $0) })
        _ = await checker.close(timeout: .seconds(5))
        _ = await run.stop()

        #expect(status == 1)
        let fatal = worker.stderr.lines.filter { $0.contains("kafka client failed fatally, stopping") }
        #expect(fatal.count == 1)
        #expect(fatal.first?.contains(#""kafka.client":"producer""#) == true)
        #expect(fatal.first?.contains("OUT_OF_ORDER_SEQUENCE_NUMBER") == true)
        #expect(worker.stderr.contains("registry partition restored"))
        #expect(committed.isEmpty)
    }
}
