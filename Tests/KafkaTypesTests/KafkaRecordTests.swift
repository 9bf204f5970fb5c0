import KafkaTypes
import Testing

@Suite struct KafkaRecordTests {
    /// A header without a value (Kafka's null) reads as no bytes and as empty text, the way the pipeline reads it.
    @Test func aHeaderWithoutAValueReadsAsEmptyText() {
        let headers = [KafkaHeader(name: "x-none", value: nil), KafkaHeader(name: "x-text", text: "é")]
        #expect(headers.first(named: "x-none") == nil)
        #expect(headers.text("x-none") == "")
        #expect(headers.text("x-text") == "é")
        #expect(headers.first(named: "x-text") == [0xC3, 0xA9])
        #expect(headers.text("x-missing") == nil)
    }

    /// The offset after a record's saturates: an offset is the broker's word, and `Int64.max + 1` would trap.
    @Test func theNextOffsetSaturates() {
        let last = KafkaRecord(topic: "t", partition: 1, offset: .max, key: nil, value: [])
        #expect(last.nextOffset == .max)
        #expect(KafkaRecord(topic: "t", partition: 1, offset: 41, key: nil, value: []).nextOffset == 42)
        #expect(last.topicPartition == TopicPartition("t", 1))
    }
}
