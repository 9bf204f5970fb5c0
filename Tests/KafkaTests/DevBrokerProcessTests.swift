import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import TestSupport
import Testing

/// Runs `kcat` with `arguments` to its end, feeding `input`.
func kcat(_ arguments: [String], input: String = "") throws -> ChildProcessResult {
    try ChildProcessResult.run(URL(fileURLWithPath: "/usr/bin/kcat"), arguments, input: input)
}

@Suite(.serialized, .timeLimit(.minutes(2)))
struct DevBrokerProcessTests {
    @Test func kcatRoundTripsRecordsThroughTheDevBrokerAndControlCommandsInjectFaults() async throws {
        let broker = try DevBrokerProcess(arguments: [
            "--brokers", "2", "--partitions", "2", "--topics", "chat.messages,push.dlq",
        ])
        let servers = try await broker.bootstrapServers()
        #expect(servers.hasPrefix("127.0.0.1:"))
        #expect(servers.split(separator: ",").count == 2)

        let events = ["{\"id\":\"m-1\",\"type\":\"text\"}", "{\"id\":\"m-2\",\"type\":\"image\"}"]
        let produced = try kcat(
            ["-P", "-b", servers, "-t", "chat.messages", "-p", "0", "-k", "r-42", "-H", "trace=t-1"],
            input: events.joined(separator: "\n") + "\n")
        #expect(produced.status == 0)
        let consumed = try kcat(["-C", "-b", servers, "-t", "chat.messages", "-e", "-q", "-f", "%k|%s|%h\\n"])
        #expect(consumed.status == 0)
        #expect(consumed.stdout == events.map { "r-42|\($0)|trace=t-1\n" }.joined())

        #expect(
            try await broker.send("request-errors Produce 1 TOPIC_AUTHORIZATION_FAILED")
                == "ok request-errors Produce 1 TOPIC_AUTHORIZATION_FAILED")
        let refused = try kcat(["-P", "-b", servers, "-t", "push.dlq", "-p", "0"], input: "refused\n")
        #expect(refused.status != 0)
        #expect(
            try await broker.send("request-errors OffsetCommit 5 REQUEST_TIMED_OUT")
                == "ok request-errors OffsetCommit 5 REQUEST_TIMED_OUT")
        #expect(try await broker.send("clear-request-errors OffsetCommit") == "ok clear-request-errors OffsetCommit")
        #expect(try await broker.send("rtt 2 50") == "ok rtt 2 50")
        #expect(try await broker.send("broker-down 1") == "ok broker-down 1")
        #expect(try await broker.send("broker-up 1") == "ok broker-up 1")
        #expect(try await broker.send("leader chat.messages 0 2") == "ok leader chat.messages 0 2")
        #expect(try await broker.send("create-topic push.retry 3") == "ok create-topic push.retry 3")
        #expect(
            try await broker.send("request-errors Produce 1 NO_SUCH_ERROR")
                == "error request-errors Produce 1 NO_SUCH_ERROR: unknown error name 'NO_SUCH_ERROR'")
        #expect(try await broker.send("explode") == "error explode: unknown command 'explode'")

        let accepted = try kcat(["-P", "-b", servers, "-t", "push.retry", "-p", "2"], input: "later\n")
        #expect(accepted.status == 0)
        #expect(try await broker.terminate() == 0)
    }

    @Test func clientsRideOutControlledBrokerOutagesAndCommitErrors() async throws {
        let broker = try DevBrokerProcess(arguments: ["--brokers", "1", "--partitions", "1", "--topics", "events"])
        let configuration = KafkaConfiguration([
            "bootstrap.servers": try await broker.bootstrapServers(), "group.id": "controlled",
        ])
        let producer = try KafkaProducer(configuration: configuration)
        let partition = TopicPartition("events", 0)
        _ = try await producer.send(KafkaProducerRecord(topic: "events", partition: 0, value: Array("before".utf8)))

        try await broker.control("broker-down 1")
        let delivery = Task {
            try await producer.send(KafkaProducerRecord(topic: "events", value: Array("during".utf8)))
        }
        try await Task.sleep(for: .seconds(2))
        try await broker.control("broker-up 1")
        #expect(try await delivery.value.offset == 1)

        // Explicit commits only: an automatic commit between the injection and `commit()` would take the one error.
        let consumer = try KafkaConsumer(
            configuration: configuration.merging(KafkaConfiguration(["enable.auto.commit": "false"])))
        try await consumer.assign([partition: .beginning])
        let records = try await consume(consumer, count: 2)
        #expect(records.map(\.text) == ["before", "during"])
        try consumer.store(try #require(records.last))
        try await broker.control("request-errors OffsetCommit 1 GROUP_AUTHORIZATION_FAILED")
        await #expect(throws: KafkaError.self) { try await consumer.commit() }
        try await consumer.commit()
        #expect(try await consumer.committedOffsets(of: [partition]) == [partition: 2])
        await consumer.close()
        await producer.close()
        #expect(try await broker.terminate() == 0)
    }
}
