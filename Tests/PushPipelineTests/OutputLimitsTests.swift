import KafkaTypes
import PushCore
import Testing

@testable import PushPipeline

@Suite struct OutputLimitsTests {
    @Test(arguments: [
        (String(repeating: "a", count: 2000), 1024), (String(repeating: "é", count: 2000), 1023),
        (String(repeating: "👩‍👩‍👧", count: 100), 1011), ("short", 5),
    ])
    func headerTextsAreCutOnACharacterBoundary(text: String, bytes: Int) {
        let bounded = OutputLimits.bounded(text)
        #expect(bounded.utf8.count == bytes)
        #expect(bounded.utf8.count <= OutputLimits.headerValueBytes)
        #expect(text.hasPrefix(bounded.dropLast(bounded == text ? 0 : 1)))
    }

    @Test func aMinimalRecordKeepsOnlyWhyAndWhereFrom() {
        let record = KafkaProducerRecord(
            topic: "dlq", key: Array(repeating: 65, count: 5000), value: Array("event".utf8),
            headers: FailureHeaders.make(
                failure: DeliveryFailure(reason: .unknownType, message: "long text", attempts: 1),
                source: SourcePosition(topic: "chat", partition: 2, offset: 7, timestampMillis: 5), group: "g",
                worker: "w"))
        let minimal = record.minimal()
        #expect(minimal.value.isEmpty)
        #expect(minimal.key == nil)
        #expect(
            minimal.headers.map(\.name) == [
                "x-dlq-reason", "x-source-topic", "x-source-partition", "x-source-offset", "x-source-timestamp",
                "x-attempts", "x-value-dropped",
            ])
        #expect(minimal.minimal() == minimal)
    }
}
