import Essentials
import KafkaTypes
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
        let input = KafkaRecord(
            topic: topic, partition: 0, offset: 0, key: nil, value: [],
            headers: headers.sorted { $0.key < $1.key }.map { KafkaHeader(name: $0.key, text: $0.value) })
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
