import Kafka
import KafkaTypes
import Testing

@Suite struct MockClusterCommandTests {
    @Test(arguments: [
        ("broker-down 1", MockClusterCommand.brokerDown(1)),
        ("broker-up 3", .brokerUp(3)),
        ("rtt 2 200", .roundTripTime(broker: 2, milliseconds: 200)),
        (
            "request-errors OffsetCommit 5 REQUEST_TIMED_OUT",
            .requestErrors(.offsetCommit, count: 5, error: .requestTimedOut)
        ),
        (
            "request-errors produce 1 TOPIC_AUTHORIZATION_FAILED",
            .requestErrors(.produce, count: 1, error: .topicAuthorizationFailed)
        ),
        ("clear-request-errors Fetch", .clearRequestErrors(.fetch)),
        ("leader chat.messages 4 2", .leader(TopicPartition("chat.messages", 4), broker: 2)),
        ("coordinator push-worker 3", .coordinator(group: "push-worker", broker: 3)),
        ("create-topic push.retry 6", .createTopic("push.retry", partitions: 6)),
        ("  ping  ", .ping),
    ])
    func parsesEveryCommand(line: String, command: MockClusterCommand) throws {
        #expect(try MockClusterCommand.parse(line) == command)
    }

    @Test(arguments: [
        ("", "empty command"),
        ("reboot", "unknown command 'reboot'"),
        ("broker-down", "expected ID, got 0 argument(s)"),
        ("broker-down one", "ID must be a non-negative whole number, not 'one'"),
        ("rtt 1 -5", "MS must be a non-negative whole number, not '-5'"),
        ("request-errors Gossip 1 REQUEST_TIMED_OUT", "unknown API 'Gossip'"),
        ("request-errors Produce 1 OOPS", "unknown error name 'OOPS'"),
        ("create-topic t 0", "PARTITIONS must be at least 1"),
        ("ping now", "expected no arguments, got 1 argument(s)"),
    ])
    func rejectsBadLinesSayingWhy(line: String, message: String) {
        #expect(throws: KafkaError.invalidArgumentForTests(message)) { try MockClusterCommand.parse(line) }
    }

}

extension KafkaError {
    static func invalidArgumentForTests(_ message: String) -> KafkaError {
        KafkaError(code: .invalidArgument, message: message, isRetriable: false)
    }
}
