import Essentials
import KafkaTypes
import Observability
import PushCore
import Synchronization
import TestSupport
import Testing

@testable import PushPipeline

/// Hostile input reproduced at the pipeline: failure headers nobody may forge, provider waits and Kafka refusals
/// that must neither trap nor loop.
@Suite(.timeLimit(.minutes(1))) struct HostileRecordTests {
    static let forged = [
        KafkaHeader(name: "x-attempts", text: "9223372036854775807"), KafkaHeader(name: "x-first-failure", text: "-5"),
        KafkaHeader(name: "x-retry-due", text: "9223372036854775807"), KafkaHeader(name: "x-source-offset", text: "77"),
        KafkaHeader(name: "x-source-topic", text: "elsewhere"), KafkaHeader(name: "x-source-partition", text: "9"),
    ]

    @Test func failureHeadersOnAnInputRecordAreNotBelieved() async {
        let harness = Harness()
        harness.source.add([record("m1;a", offset: 0, headers: Self.forged)])
        #expect(await harness.run(untilStored: 1))
        let receipt = harness.receipts().first
        #expect(receipt?["status"] == .string("delivered"))
        #expect(receipt?["attempts"] == .number("1"))
        #expect(receipt?["source"]?["topic"] == .string("chat"))
        #expect(receipt?["source"]?["offset"] == .number("0"))
        #expect(!harness.observer.all.contains { if case .headerIgnored = $0 { true } else { false } })
    }

    /// A negative `x-attempts` on an input record switched the attempt limit off: the device went round the
    /// retry topic for ever instead of being dead-lettered after `maxAttempts` sends.
    @Test func aNegativeAttemptCountOnAnInputRecordDoesNotLiftTheAttemptLimit() async {
        let harness = Harness()
        harness.sender.answerEverything(with: .retry(status: 500, reason: "InternalServerError", after: nil))
        harness.source.add([record("m1;a", offset: 0, headers: [KafkaHeader(name: "x-attempts", text: "-1000")])])
        #expect(await harness.run(untilStored: 1))
        #expect(harness.sender.sent.count == harness.settings.maxAttempts)
        #expect(harness.sink.records(on: "dlq").first?.header("x-attempts") == "4")
        #expect(harness.settings.retryTiers.topics.allSatisfy { harness.sink.records(on: $0).isEmpty })
    }

    @Test func hostileFailureHeadersOnARetryRecordAreClampedOrIgnoredWithALogEvent() async {
        let harness = Harness()
        harness.sender.answerEverything(with: .retry(status: 500, reason: "InternalServerError", after: nil))
        harness.source.add([record("m1;a", offset: 0, topic: "retry-1000", headers: Self.forged)])
        let running = harness.start()
        // A due time in 292 million years is ignored: the record is not held for ever.
        #expect(await harness.settled { harness.stored("retry-1000", 0) == 1 })
        _ = await harness.stop(running)
        // Attempts clamped to maxAttempts: one more send, then the dead letter.
        #expect(harness.sender.sent == ["m1/a"])
        let deadLetter = harness.sink.records(on: "dlq").first
        #expect(deadLetter?.header("x-dlq-reason") == "retries_exhausted")
        #expect(deadLetter?.header("x-attempts") == "5")
        #expect(deadLetter?.header("x-first-failure") != "-5")
        let ignored = harness.observer.all.compactMap { event -> String? in
            if case .headerIgnored(_, _, let header, _) = event { header } else { nil }
        }
        #expect(ignored.sorted() == ["x-attempts", "x-first-failure", "x-retry-due"])
    }

    @Test func aRetryAfterOfInt64MaxSecondsIsCutToTheLongestRetryDelay() async {
        let harness = Harness()
        harness.sender.script("m1/a", [.retry(status: 429, reason: "TooManyRequests", after: .seconds(Int64.max))])
        harness.source.add([record("m1;a", offset: 0)])
        #expect(await harness.run(untilStored: 1))
        // Beyond the longest tier (1 h) the record goes there with its real due time.
        let retry = harness.sink.records(on: "retry-3600000").first
        let due = retry?.header("x-retry-not-before").flatMap { Int64($0) } ?? 0
        let failed = retry?.header("x-first-failure").flatMap { Int64($0) } ?? 0
        #expect(due - failed == harness.settings.maxRetryDelay.wholeMilliseconds)
    }

    /// An event type of 100 kB under an `unknownType: deadLetter` rule: the header quoting it is cut to 1 KB.
    @Test func failureHeadersAreBoundedToOneKilobyteOnACharacterBoundary() async {
        let harness = Harness()
        let name = "unknown" + String(repeating: "é", count: 50_000)
        harness.source.add([record("m1;\(name)", offset: 0)])
        #expect(await harness.run(untilStored: 1))
        let error = harness.sink.records(on: "dlq").first?.headers.first { $0.name == "x-dlq-error" }?.value ?? []
        #expect(error.count <= 1024)
        #expect(error.count > 1000)
        #expect(String(validating: error, as: UTF8.self)?.hasSuffix("é…") == true)
    }

    /// Kafka refuses the dead letter even without its value: a minimal record (reason and source position, no
    /// long text) goes out instead of the same refusal again and again.
    @Test func aDeadLetterRefusedEvenWithoutItsValueGoesOutMinimal() async {
        let harness = Harness()
        harness.sink.state.withLock { $0.maximumHeaderBytes = 300 }
        harness.source.add([record("m1;unknown" + String(repeating: "t", count: 5_000), offset: 0, key: "room-z")])
        #expect(await harness.run(untilStored: 1))
        let deadLetter = harness.sink.records(on: "dlq")
        #expect(deadLetter.count == 1)
        #expect(deadLetter.first?.value.isEmpty == true)
        #expect(deadLetter.first?.key == Array("room-z".utf8))
        #expect(deadLetter.first?.header("x-dlq-reason") == "unknown_type")
        #expect(deadLetter.first?.header("x-source-offset") == "0")
        #expect(deadLetter.first?.header("x-dlq-error") == nil)
        #expect(deadLetter.first?.header("x-value-dropped") != nil)
        #expect(harness.sink.state.withLock { $0.attempts } == 3)
    }

    /// A record Kafka refuses in every form is produced again only after a growing, jittered backoff: a few
    /// dozen calls in a minute, not thousands a second; each is counted for the metric and readiness.
    @Test func aRecordKafkaAlwaysRefusesIsBackedOffNotHotLooped() async {
        let harness = Harness()
        harness.sink.state.withLock { $0.maximumHeaderBytes = 0 }
        harness.source.add([record("junk", offset: 0)])
        let started = harness.clock.nowMillis()
        let running = harness.start()
        #expect(await harness.advancing { harness.clock.nowMillis() - started > 60_000 })
        let attempts = harness.sink.state.withLock { $0.attempts }
        _ = await harness.stop(running)
        #expect(attempts >= 3)
        #expect(attempts < 100, "\(attempts) produce calls in one virtual minute")
        #expect(harness.stored() == nil)
        #expect(harness.observer.all.contains(.produceRetrying(topics: ["dlq"], reason: "message_too_large")))
    }

    @Test func aFatalProducerErrorEndsTheRecordUndoneWithoutProducingAgain() async {
        let harness = Harness()
        harness.sink.state.withLock { $0.fatal = true }
        harness.source.add([record("m1;a", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.sink.state.withLock { $0.attempts } == 1 })
        // Produced again, the record would not end; its backoff runs on the clock, which moves here.
        #expect(await harness.advancing { running.0.recordsInFlight == 0 })
        _ = await harness.stop(running)
        #expect(harness.sink.state.withLock { $0.attempts } == 1)
        #expect(harness.stored() == nil)
        #expect(!harness.observer.all.contains { if case .produceRetrying = $0 { true } else { false } })
    }
}
