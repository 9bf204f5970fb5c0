import KafkaTypes
import PushCore
import Synchronization
import TestSupport
import Testing

@testable import PushPipeline

@Suite(.timeLimit(.minutes(1))) struct PipelineDeliveryTests {
    @Test func writesOneReceiptPerDeviceThenStoresTheOffset() async {
        let harness = Harness()
        harness.source.add([record("m1;a,b", offset: 0), record("m2;fc", offset: 1, key: "room-b")])
        #expect(await harness.run(untilStored: 2))
        #expect(harness.receiptStatuses() == ["u-a": "delivered", "u-b": "delivered", "u-fc": "delivered"])
        // Different rooms run in parallel: the receipts of m1 and m2 may come in either order.
        let keys = harness.sink.records(on: "receipts").compactMap(\.key).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(keys == [Array("m1".utf8), Array("m1".utf8), Array("m2".utf8)])
        #expect(harness.source.snapshot.commits == 1)
        #expect(harness.source.snapshot.closed)
    }

    @Test func aRecordWithMoreDevicesThanConcurrentSendsGetsEveryDeviceSent() async {
        var harness = Harness()
        harness.settings.maxConcurrentSends = 3
        let names = (1...10).map { "d\($0)" }
        harness.source.add([record("m1;" + names.joined(separator: ","), offset: 0)])
        #expect(await harness.run(untilStored: 1))
        #expect(Set(harness.sender.sent) == Set(names.map { "m1/\($0)" }))
        #expect(harness.receiptStatuses() == Dictionary(uniqueKeysWithValues: names.map { ("u-\($0)", "delivered") }))
    }

    @Test func aRecordOfAFewSendsHasThemAllInFlightAtOnceEachAnswerWithItsDevice() async {
        let harness = Harness()
        harness.sender.hold("m1/a")
        harness.sender.hold("m1/b")
        harness.sender.script("m1/b", [.invalidToken(status: 410, reason: "Unregistered", invalidSinceMillis: nil)])
        harness.sender.script("m1/c", [.rejected(status: 400, reason: "BadTopic")])
        harness.source.add([record("m1;a,b,c", offset: 0)])
        let running = harness.start()
        // The first two are held: the third was sent beside them, not after them.
        #expect(await harness.settled { Set(harness.sender.sent) == ["m1/a", "m1/b", "m1/c"] })
        harness.sender.release("m1/b")
        harness.sender.release("m1/a")
        #expect(await harness.advancing { harness.stored() == 1 })
        _ = await harness.stop(running)
        #expect(harness.receiptStatuses() == ["u-a": "delivered", "u-b": "invalid_token", "u-c": "rejected"])
    }

    @Test func devicesRetriedInProcessBeyondConcurrentSendsAreAllSettled() async {
        var harness = Harness()
        harness.settings.maxConcurrentSends = 3
        let names = (1...10).map { "d\($0)" }
        for name in names {
            harness.sender.script("m1/\(name)", [.retry(status: 503, reason: "ServiceUnavailable", after: nil)])
        }
        harness.source.add([record("m1;" + names.joined(separator: ","), offset: 0)])
        #expect(await harness.run(untilStored: 1))
        #expect(harness.sender.sent.sorted() == names.flatMap { ["m1/\($0)", "m1/\($0)"] }.sorted())
        #expect(harness.receiptStatuses() == Dictionary(uniqueKeysWithValues: names.map { ("u-\($0)", "delivered") }))
        #expect(harness.retryRecords().isEmpty)
    }

    @Test func aDeviceRejectedBeforeSendingGetsARejectedReceiptWithItsReasonAndNoSend() async throws {
        let harness = Harness()
        harness.source.add([record("m1;noapp1,a", offset: 0)])
        #expect(await harness.run(untilStored: 1))
        #expect(harness.sender.sent == ["m1/a"])
        #expect(harness.receiptStatuses() == ["u-noapp1": "rejected", "u-a": "delivered"])
        let rejected = try #require(harness.receipts().first { $0["userId"] == .string("u-noapp1") })
        #expect(rejected["reason"] == .string("unknown_app"))
        #expect(rejected["attempts"] == .number("0"))
        #expect(harness.retryRecords().isEmpty)
    }

    @Test func receiptsHaveTheContractShape() async throws {
        let harness = Harness()
        harness.sender.script("m1/a", [.delivered(providerMessageId: "apns-1")])
        harness.source.add([record("m1;a", offset: 7)])
        #expect(await harness.run(untilStored: 8))
        let receipt = try #require(harness.receipts().first)
        guard case .object(let members) = receipt else {
            Issue.record("receipt is not an object")
            return
        }
        #expect(
            members.map(\.key) == [
                "receiptId", "messageId", "room", "type", "userId", "platform", "tokenHash", "status", "reason",
                "providerMessageId",
                "attempts", "source", "eventTime", "sentAt", "latencyMs", "replayRunId", "worker",
            ])
        #expect(receipt["messageId"] == .string("m1"))
        #expect(receipt["tokenHash"] == .string("sha256:a"))
        #expect(receipt["reason"] == .null)
        #expect(receipt["providerMessageId"] == .string("apns-1"))
        #expect(receipt["attempts"] == .number("1"))
        #expect(receipt["source"]?["topic"] == .string("chat"))
        #expect(receipt["source"]?["offset"] == .number("7"))
        #expect(receipt["eventTime"] == .string("2027-01-15T08:00:00.000Z"))
        #expect(receipt["worker"] == .string("worker-1"))
        #expect(receipt["token"] == nil)
    }

    @Test func anInvalidTokenGetsAReceiptWithoutItsTokenAndARecordOnTheInvalidTokenTopic() async throws {
        let harness = Harness()
        harness.sender.script(
            "m1/a", [.invalidToken(status: 410, reason: "Unregistered", invalidSinceMillis: 1_800_000_000_000)])
        harness.source.add([record("m1;a", offset: 0)])
        #expect(await harness.run(untilStored: 1))
        let receipt = harness.receipts().first
        #expect(receipt?["status"] == .string("invalid_token"))
        #expect(receipt?["reason"] == .string("Unregistered"))
        #expect(receipt?["token"] == nil)
        #expect(receipt?["tokenTimestamp"] == nil)
        let records = harness.sink.records(on: harness.settings.invalidTokensTopic)
        #expect(records.map(\.key) == [Array("apns:sha256:a".utf8)])
        let invalid = try #require(records.first.flatMap { InvalidTokenRecord(json: $0.value) })
        #expect(invalid.token == "token-a")
        #expect(invalid.userId == "u-a")
        #expect(invalid.reason == "Unregistered")
        #expect(invalid.invalidSinceMillis == 1_800_000_000_000)
        #expect(invalid.messageId == "m1")
        #expect(harness.sender.sent == ["m1/a"])
    }

    @Test func skippedExpiredAndUnsendableDevicesGetReceiptsWithoutBeingSent() async {
        let harness = Harness()
        harness.source.add([record("m1;skip1,old1,big1,a", offset: 0)])
        #expect(await harness.run(untilStored: 1))
        #expect(harness.sender.sent == ["m1/a"])
        #expect(
            harness.receiptStatuses() == [
                "u-skip1": "skipped", "u-old1": "expired", "u-big1": "dead_lettered", "u-a": "delivered",
            ])
        let deadLetter = harness.sink.records(on: "dlq")
        #expect(deadLetter.map(\.text) == ["m1;big1"])
        #expect(deadLetter.first?.header(FailureHeaders.reason) == "payload_too_large")
        #expect(deadLetter.first?.key == Array("room-a".utf8))
    }

    @Test func undecodableRecordsGoToTheDeadLetterTopicWithOriginalBytesKeyAndHeaders() async {
        let harness = Harness()
        harness.source.add([record("{not json", offset: 4, key: "room-z"), record("m2;a", offset: 5)])
        #expect(await harness.run(untilStored: 6))
        let deadLetter = harness.sink.records(on: "dlq")
        #expect(deadLetter.count == 1)
        #expect(deadLetter.first?.text == "{not json")
        #expect(deadLetter.first?.key == Array("room-z".utf8))
        let headers = deadLetter.first?.headers.map(\.name) ?? []
        #expect(
            headers == [
                "x-dlq-reason", "x-dlq-error", "x-source-topic", "x-source-partition", "x-source-offset",
                "x-source-timestamp", "x-source-group", "x-attempts", "x-first-failure", "x-worker",
            ])
        #expect(deadLetter.first?.header("x-dlq-reason") == "decode_error")
        #expect(deadLetter.first?.header("x-source-offset") == "4")
        #expect(deadLetter.first?.header("x-source-group") == "group-1")
        #expect(deadLetter.first?.header("x-source-timestamp") == "1800000000500")
        #expect(harness.receiptStatuses() == ["u-a": "delivered"])
    }

    @Test func unacknowledgedOutputsAreProducedAgainBeforeTheOffsetIsStored() async {
        let harness = Harness()
        harness.sink.failNext(2)
        harness.source.add([record("m1;a", offset: 0)])
        #expect(await harness.run(untilStored: 1))
        #expect(harness.sink.state.withLock { $0.attempts } == 3)
        #expect(harness.sink.records(on: "receipts").count == 1)
    }

    @Test func aDeadLetterTooLargeForKafkaGoesWithoutItsValueButWithItsReasonAndSource() async {
        let harness = Harness()
        harness.sink.state.withLock { $0.maximumValueBytes = 1_000 }
        let huge = String(repeating: "x", count: 5_000)
        harness.source.add([record(huge, offset: 0, key: "room-z"), record("m1;a", offset: 1)])
        #expect(await harness.run(untilStored: 2))
        let deadLetter = harness.sink.records(on: "dlq")
        #expect(deadLetter.count == 1)
        #expect(deadLetter.first?.value.isEmpty == true)
        #expect(deadLetter.first?.key == Array("room-z".utf8))
        #expect(deadLetter.first?.header("x-value-dropped") == "5000")
        #expect(deadLetter.first?.header("x-dlq-reason") == "decode_error")
        #expect(deadLetter.first?.header("x-source-offset") == "0")
    }
}
