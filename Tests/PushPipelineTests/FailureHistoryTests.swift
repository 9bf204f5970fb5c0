import Essentials
import Testing

@testable import PushPipeline

@Suite struct FailureHistoryTests {
    static let settings: PipelineSettings = {
        var settings = PipelineSettings(
            inputTopics: ["chat"], retryTiers: RetryTiers(base: "retry", delays: [.seconds(1)]),
            receiptsTopic: "receipts", deadLetterTopic: "dlq", group: "g", worker: "w")
        settings.maxAttempts = 8
        return settings
    }()
    static let now: Int64 = 1_800_000_000_000

    static func history(_ headers: [String: String], topic: String = "retry-1000") -> FailureHistory {
        let input = InputRecord(
            topic: topic, partition: 0, offset: 0, key: nil, value: [],
            headers: headers.sorted { $0.key < $1.key }.map { RecordHeader($0.key, text: $0.value) })
        return FailureHistory(of: input, settings: settings, nowMillis: now)
    }

    @Test func theWorkersOwnHeadersAreReadOnTheRetryTopic() {
        let history = Self.history([
            "x-attempts": "3", "x-first-failure": "1799999990000", "x-retry-due": "1800000005000",
        ])
        #expect(history.priorAttempts == 3)
        #expect(history.firstFailureMillis == 1_799_999_990_000)
        #expect(history.retryDueMillis == 1_800_000_005_000)
        #expect(history.ignored.isEmpty)
    }

    @Test func onAnInputTopicNothingIsRead() {
        let history = Self.history(["x-attempts": "3", "x-retry-due": "1800000005000"], topic: "chat")
        #expect(history.priorAttempts == 0)
        #expect(history.retryDueMillis == nil)
        #expect(history.ignored.isEmpty)
    }

    @Test(arguments: [
        ("9223372036854775807", 8, true), ("99999999999999999999", 0, true), ("-1", 0, true), ("8", 8, false),
        ("9", 8, true), ("0", 0, false), (" 3", 0, true), ("3.0", 0, true), ("", 0, true), ("٣", 0, true),
    ])
    func attemptsAreClampedToTheLimitOrIgnored(text: String, expected: Int, reported: Bool) {
        let history = Self.history(["x-attempts": text])
        #expect(history.priorAttempts == expected)
        #expect(history.ignored.map(\.name) == (reported ? ["x-attempts"] : []))
    }

    @Test(arguments: [
        "9223372036854775807", "-9223372036854775808", "-1", "1900000000000", "now", "18000000000000000000000",
    ])
    func implausibleTimesAreIgnoredAndReported(text: String) {
        let history = Self.history(["x-first-failure": text, "x-retry-due": text])
        #expect(history.firstFailureMillis == nil)
        #expect(history.retryDueMillis == nil)
        #expect(history.ignored.map(\.name) == ["x-first-failure", "x-retry-due"])
    }

    @Test func aDueTimeUpToTheLongestRetryDelayAheadIsKept() {
        let latest = Self.now + Self.settings.maxRetryDelay.wholeMilliseconds + FailureHistory.futureSkewMillis
        #expect(Self.history(["x-retry-due": String(latest)]).retryDueMillis == latest)
        #expect(Self.history(["x-retry-due": String(latest + 1)]).retryDueMillis == nil)
    }
}

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
        let record = OutputRecord(
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
