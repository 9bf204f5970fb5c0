import KafkaTypes
import Testing

@Suite("Topic partitions")
struct TopicPartitionTests {
    @Test func orderByTopicThenPartition() {
        let unordered = [TopicPartition("b", 0), TopicPartition("a", 10), TopicPartition("a", 2)]
        #expect(unordered.sorted() == [TopicPartition("a", 2), TopicPartition("a", 10), TopicPartition("b", 0)])
    }

    @Test func describeAsTopicAndPartitionInBrackets() {
        #expect(TopicPartition("chat.messages", 3).description == "chat.messages[3]")
    }
}
