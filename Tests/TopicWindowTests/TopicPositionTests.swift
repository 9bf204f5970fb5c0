import Kafka
import KafkaTypes
import Testing
import TopicWindow

@Suite struct TopicPositionTests {
    @Test(arguments: [
        ("beginning", TopicPosition.beginning), ("end", .end), ("1200", .offset(1200)), ("0", .offset(0)),
        ("0:1200,3:77", .offsets([0: 1200, 3: 77])), ("2026-11-30T10:00:00Z", .time(epochMillis: 1_796_032_800_000)),
        ("2026-11-30T19:00:00.5+09:00", .time(epochMillis: 1_796_032_800_500)),
    ])
    func parsesEveryForm(text: String, expected: TopicPosition) throws {
        #expect(try TopicPosition.parse(text).get() == expected)
    }

    @Test(arguments: [
        ("-1", "an offset is not negative"), ("0:1,0:2", "partition 0 is named twice"),
        ("0:x", "'0:x' is not PARTITION:OFFSET"), ("1:-5", "'1:-5' is not PARTITION:OFFSET"),
        ("yesterday", "expected beginning, end, an offset, PARTITION:OFFSET,… or an RFC 3339 time"),
        ("99999999999999999999", "expected beginning, end, an offset, PARTITION:OFFSET,… or an RFC 3339 time"),
    ])
    func refusesWhatIsNotAPositionSayingWhy(text: String, reason: String) {
        #expect(throws: PositionSyntaxError(text, reason)) { try TopicPosition.parse(text).get() }
    }
}
