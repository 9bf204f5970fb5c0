import Kafka
import Testing

/// Parsed commands applied to a live mock cluster (its brokers listen on TCP).
@Suite struct MockClusterCommandApplyTests {
    @Test func appliesToALiveCluster() throws {
        let cluster = try MockCluster(brokers: 2)
        try MockClusterCommand.parse("create-topic t 2").apply(to: cluster)
        try MockClusterCommand.parse("leader t 1 2").apply(to: cluster)
        #expect(throws: KafkaError.self) { try MockClusterCommand.parse("broker-down 9").apply(to: cluster) }
    }
}
