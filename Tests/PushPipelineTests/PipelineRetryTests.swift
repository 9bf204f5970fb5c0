import Essentials
import KafkaTypes
import PushCore
import TestSupport
import Testing

@testable import PushPipeline

@Suite(.timeLimit(.minutes(1))) struct PipelineRetryTests {
    @Test func retriesInProcessHonouringRetryAfterWithinTheBudget() async {
        let harness = Harness()
        harness.sender.script(
            "m1/a",
            [
                .retry(status: 429, reason: "TooManyRequests", after: .seconds(3)),
                .retry(status: 500, reason: "x", after: nil),
            ])
        harness.source.add([record("m1;a", offset: 0)])
        let started = harness.clock.nowMillis()
        #expect(await harness.run(untilStored: 1))
        #expect(harness.sender.sent == ["m1/a", "m1/a", "m1/a"])
        // Retry-After 3 s, then 2 s of backoff after the second attempt.
        #expect(harness.clock.nowMillis() - started >= 5_000)
        #expect(harness.receipts().first?["attempts"] == .number("3"))
        #expect(harness.receipts().first?["status"] == .string("delivered"))
        #expect(harness.retryRecords().isEmpty)
    }

    @Test func beyondTheBudgetTheNarrowedEventGoesToTheRetryTopic() async {
        let harness = Harness()
        harness.sender.script("m1/b", [.retry(status: 503, reason: "ServiceUnavailable", after: .seconds(60))])
        harness.source.add([record("m1;a,b", offset: 3, key: "room-a")])
        #expect(await harness.run(untilStored: 4))
        let retry = harness.retryRecords()
        #expect(retry.count == 1)
        #expect(retry.first?.topic == "retry-60000")
        #expect(retry.first?.text == "m1;b")
        #expect(retry.first?.key == Array("room-a".utf8))
        #expect(retry.first?.header("x-attempts") == "1")
        #expect(retry.first?.header("x-dlq-status") == "503")
        #expect(retry.first?.header("x-dlq-error") == "ServiceUnavailable")
        #expect(retry.first?.header("x-source-offset") == "3")
        let due = retry.first?.header("x-retry-due").flatMap { Int64($0) } ?? 0
        let failed = retry.first?.header("x-first-failure").flatMap { Int64($0) } ?? 0
        // The tier's 60 s from when the record was written, at or after the Retry-After's 60 s from the failure.
        #expect((60_000..<61_000).contains(due - failed))
        #expect(harness.receiptStatuses() == ["u-a": "delivered"])
    }

    @Test func retryRecordsWaitForTheirDueTimeByPausingOnlyTheirTierPartition() async {
        let harness = Harness()
        let due = harness.clock.nowMillis() + 30_000
        let headers = [
            KafkaHeader(name: "x-retry-due", text: String(due)), KafkaHeader(name: "x-attempts", text: "1"),
            KafkaHeader(name: "x-source-topic", text: "chat"), KafkaHeader(name: "x-source-partition", text: "2"),
            KafkaHeader(name: "x-source-offset", text: "40"),
        ]
        harness.source.add([record("m1;a", offset: 0, topic: "retry-60000", headers: headers)])
        harness.source.add([record("m2;b", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.source.snapshot.paused == [TopicPartition("retry-60000", 0)] })
        #expect(await harness.settled { harness.stored() == 1 })
        #expect(!harness.sender.sent.contains("m1/a"))
        #expect(await harness.advancing { harness.stored("retry-60000", 0) == 1 })
        _ = await harness.stop(running)
        #expect(harness.clock.nowMillis() >= due)
        let receipt = harness.receipts().first { $0["messageId"] == .string("m1") }
        #expect(receipt?["attempts"] == .number("2"))
        #expect(receipt?["source"]?["topic"] == .string("chat"))
        #expect(receipt?["source"]?["offset"] == .number("40"))
        #expect(harness.source.snapshot.resumeCalls.contains([TopicPartition("retry-60000", 0)]))
    }

    /// The case: a far Retry-After used to pause the one retry partition and hold back every later retry.
    @Test func aTenMinuteRetryDoesNotDelayAOneSecondRetryWrittenAfterIt() async throws {
        var harness = Harness()
        harness.settings.retryBudget = .zero
        harness.settings.pollTimeout = .seconds(1)
        harness.sender.script("m1/a", [.retry(status: 429, reason: "TooManyRequests", after: .seconds(600))])
        harness.sender.script("m2/b", [.retry(status: 503, reason: "ServiceUnavailable", after: .seconds(1))])
        harness.source.add([record("m1;a", offset: 0, key: "room-a"), record("m2;b", offset: 1, key: "room-b")])
        let started = harness.clock.nowMillis()
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 2 })
        let retries = harness.retryRecords()
        #expect(Set(retries.map(\.topic)) == ["retry-600000", "retry-1000"])
        // Consumed back as a group consumer would: each retry record from its own tier's partition 0.
        harness.source.add(
            retries.map { retry in
                record(
                    retry.text, offset: 0, key: String(decoding: retry.key ?? [], as: UTF8.self), topic: retry.topic,
                    headers: retry.headers)
            })
        #expect(await harness.advancing { harness.sender.sent.filter { $0 == "m2/b" }.count == 2 })
        #expect(harness.clock.nowMillis() - started < 600_000)
        #expect(harness.sender.sent.filter { $0 == "m1/a" }.count == 1)
        #expect(harness.source.snapshot.paused.contains(TopicPartition("retry-600000", 0)))
        #expect(await harness.advancing { harness.stored("retry-600000", 0) == 1 })
        _ = await harness.stop(running)
        #expect(harness.clock.nowMillis() - started >= 600_000)
        #expect(harness.receiptStatuses() == ["u-a": "delivered", "u-b": "delivered"])
    }

    @Test func aRetryTakenUpBeforeItsRealDueTimeMovesOnUnsentToTheTierCoveringTheRest() async {
        let harness = Harness()
        let now = harness.clock.nowMillis()
        let headers = [
            KafkaHeader(name: "x-retry-due", text: String(now)), KafkaHeader(name: "x-attempts", text: "2"),
            KafkaHeader(name: "x-retry-not-before", text: String(now + 30_000)),
            KafkaHeader(name: "x-source-offset", text: "7"),
        ]
        harness.source.add([record("m1;a", offset: 0, topic: "retry-3600000", headers: headers)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored("retry-3600000", 0) == 1 })
        _ = await harness.stop(running)
        #expect(harness.sender.sent.isEmpty)
        let moved = harness.retryRecords()
        #expect(moved.map(\.topic) == ["retry-60000"])
        #expect(moved.first?.text == "m1;a")
        #expect(moved.first?.key == Array("room-a".utf8))
        #expect(moved.first?.header("x-attempts") == "2")
        #expect(moved.first?.header("x-source-offset") == "7")
        #expect(moved.first?.header("x-retry-not-before") == nil)
        let due = moved.first?.header("x-retry-due").flatMap { Int64($0) } ?? 0
        #expect(due >= now + 30_000)
        #expect(harness.receipts().isEmpty)
        #expect(harness.observer.all.contains(.retryMovedOn(from: "retry-3600000", to: "retry-60000")))
    }

    @Test func aForgedNotBeforeIsCutTo24HoursOnARetryTopicAndIgnoredOnAnInputTopic() async {
        let harness = Harness()
        let now = harness.clock.nowMillis()
        let headers = [
            KafkaHeader(name: "x-retry-due", text: String(now)),
            KafkaHeader(name: "x-retry-not-before", text: String(Int64.max)),
        ]
        harness.source.add([record("m1;a", offset: 0, topic: "retry-3600000", headers: headers)])
        harness.source.add([record("m2;b", offset: 0, headers: headers)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored("retry-3600000", 0) == 1 && harness.stored() == 1 })
        _ = await harness.stop(running)
        #expect(harness.sender.sent == ["m2/b"])
        let moved = harness.retryRecords()
        #expect(moved.map(\.topic) == ["retry-3600000"])
        let notBefore = moved.first?.header("x-retry-not-before").flatMap { Int64($0) } ?? 0
        #expect((86_400_000..<86_500_000).contains(notBefore - now))
    }

    @Test func aRetryFartherThanTheLongestTierIsWrittenThereWithItsRealDueTime() async {
        var harness = Harness()
        harness.settings.retryBudget = .zero
        harness.sender.script("m1/a", [.retry(status: 429, reason: "TooManyRequests", after: .seconds(86_400))])
        harness.source.add([record("m1;a", offset: 0)])
        let started = harness.clock.nowMillis()
        #expect(await harness.run(untilStored: 1))
        let retry = harness.retryRecords()
        #expect(retry.map(\.topic) == ["retry-3600000"])
        let due = retry.first?.header("x-retry-due").flatMap { Int64($0) } ?? 0
        let notBefore = retry.first?.header("x-retry-not-before").flatMap { Int64($0) } ?? 0
        #expect((3_600_000..<3_700_000).contains(due - started))
        #expect((86_400_000..<86_500_000).contains(notBefore - started))
    }

    @Test func afterTheLastAttemptTheDeviceIsDeadLettered() async {
        let harness = Harness()
        harness.sender.script("m1/a", [.retry(status: 500, reason: "InternalServerError", after: nil)])
        let headers = [
            KafkaHeader(name: "x-retry-due", text: "0"), KafkaHeader(name: "x-attempts", text: "3"),
            KafkaHeader(name: "x-first-failure", text: "1700000000000"),
            KafkaHeader(name: "x-source-topic", text: "chat"), KafkaHeader(name: "x-source-partition", text: "1"),
            KafkaHeader(name: "x-source-offset", text: "9"),
            KafkaHeader(name: "x-source-timestamp", text: "1700000000001"),
        ]
        harness.source.add([record("m1;a", offset: 0, key: "room-q", topic: "retry-1000", headers: headers)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored("retry-1000", 0) == 1 })
        _ = await harness.stop(running)
        #expect(harness.sender.sent == ["m1/a"])
        let deadLetter = harness.sink.records(on: "dlq")
        #expect(deadLetter.map(\.text) == ["m1;a"])
        #expect(deadLetter.first?.key == Array("room-q".utf8))
        #expect(deadLetter.first?.header("x-dlq-reason") == "retries_exhausted")
        #expect(deadLetter.first?.header("x-dlq-status") == "500")
        #expect(deadLetter.first?.header("x-attempts") == "4")
        #expect(deadLetter.first?.header("x-first-failure") == "1700000000000")
        #expect(deadLetter.first?.header("x-source-partition") == "1")
        #expect(deadLetter.first?.header("x-source-timestamp") == "1700000000001")
        #expect(deadLetter.first?.header("x-worker") == "worker-1")
        #expect(harness.receiptStatuses() == ["u-a": "dead_lettered"])
        #expect(harness.retryRecords().isEmpty)
    }

    @Test func aFailingProviderPausesConsumptionAndIsProbedInsteadOfFloodingTheRetryTopic() async {
        var harness = Harness()
        harness.settings.providerFailureThreshold = 3
        harness.settings.probeInterval = .seconds(1)
        harness.sender.answerEverything(with: .retry(status: 503, reason: "ServiceUnavailable", after: nil))
        harness.source.add((0..<6).map { record("m\($0);a", offset: Int64($0), key: "room-\($0)") })
        let running = harness.start()
        #expect(await harness.settled { harness.observer.all.contains(.breakerOpened(.apns)) })
        // The run loop pauses at its next turn, when its poll ends.
        #expect(await harness.advancing { !harness.source.snapshot.paused.isEmpty })
        let probesBefore = harness.sender.sent.count
        #expect(await harness.advancing { harness.sender.sent.count > probesBefore + 2 })
        #expect(harness.retryRecords().isEmpty)
        #expect(harness.sink.records(on: "dlq").isEmpty)
        harness.sender.answerEverything(with: .delivered(providerMessageId: "ok"))
        #expect(await harness.advancing { harness.stored() == 6 })
        #expect(harness.observer.all.contains(.breakerClosed(.apns)))
        _ = await harness.stop(running)
        #expect(harness.receipts().count == 6)
    }

    @Test func aShutdownHandsTheSendsAnOpenBreakerHoldsBackToTheRetryTopicSoTheirRecordsAreDone() async {
        var harness = Harness()
        harness.settings.providerFailureThreshold = 1
        harness.settings.probeInterval = .seconds(3600)
        harness.settings.shutdownGracePeriod = .seconds(5)
        harness.sender.answerEverything(with: .retry(status: 429, reason: "TooManyProviderTokenUpdates", after: nil))
        harness.source.add((0..<6).map { record("m\($0);a", offset: Int64($0), key: "room-\($0 % 2)") })
        let running = harness.start()
        #expect(await harness.settled { harness.observer.all.contains(.breakerOpened(.apns)) })
        let sentBefore = harness.sender.sent.count
        #expect(await harness.stop(running) == .shutDown(unfinished: 0))
        #expect(harness.stored() == 6)
        #expect(harness.retryRecords().count == 6)
        #expect(harness.sender.sent.count == sentBefore, "no send made once the breaker opened")
    }
}
