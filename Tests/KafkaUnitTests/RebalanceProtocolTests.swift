import CRdKafka
import KafkaTypes
import Synchronization
import Testing

@testable import Kafka

@Suite struct RebalanceProtocolTests {
    let partition = TopicPartition("t", 0)

    /// librdkafka 2.16 returns NULL from `rd_kafka_rebalance_protocol` while a consumer closes; 2.0.2 does for a
    /// consumer without a group. A revoke served then lets the partitions go instead of trapping on the NULL.
    @Test func aRevokeWhenLibrdkafkaNamesNoProtocolLetsThePartitionsGo() throws {
        let errors = Mutex<[KafkaError]>([])
        let context = ConsumerContext(errorHandler: { error in errors.withLock { $0.append(error) } }, logHandler: nil)
        let client = try RDKafkaClient(.consumer, properties: [:], callbacks: context.callbacks)
        #expect(rd_kafka_rebalance_protocol(client.handle) == nil)
        context.state.withLock { state in
            state.revokeHandling = .acknowledged
            state.assign([partition])
            state.isClosed = true
        }
        let revoked = RDKafkaTopicPartitionList([partition])
        context.rebalance(
            handle: client.handle, code: RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS, partitions: revoked.pointer)
        #expect(context.state.withLock { $0.assignment }.isEmpty)
    }

    @Test func aNullCStringIsNoText() {
        #expect(String(libraryText: nil) == nil)
        #expect(String(topicOf: nil) == nil)
        "COOPERATIVE".withCString { #expect(String(libraryText: $0) == "COOPERATIVE") }
    }

    /// A protocol librdkafka does not name keeps the one it named last: a closing cooperative consumer still lets
    /// its partitions go incrementally.
    @Test func anUnnamedProtocolIsTheOneNamedLast() {
        var state = ConsumerState()
        let named: [String?] = [nil, "COOPERATIVE", nil, "EAGER", nil, "NONE"]
        let cooperative = named.map { state.noteRebalanceProtocol($0) }
        #expect(cooperative == [false, true, true, false, false, false])
    }
}
