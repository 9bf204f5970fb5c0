import KafkaTypes
import PushCore
import TestSupport
import Testing

@testable import PushPipeline

/// `receiptId`: the same on every copy of one attempt's receipt, another one for a new attempt, a replay run or
/// another device send.
@Suite(.timeLimit(.minutes(1))) struct ReceiptIDTests {
    static let device = DeviceTarget(userId: "u-1", platform: "apns", token: "raw", tokenHash: "sha256:aa")

    static func receipt(
        messageId: String = "m-1", device: DeviceTarget = device, attempts: Int = 1, replayRunId: String? = nil
    ) -> Receipt {
        Receipt(
            messageId: messageId, room: "r-1", type: "text", device: device, status: .delivered, reason: nil,
            providerMessageId: "apns-1", attempts: attempts,
            source: SourcePosition(topic: "chat", partition: 0, offset: 7, timestampMillis: 1),
            eventTimeMillis: 1_800_000_000_000, sentAtMicros: 1_800_000_000_100_000, latencyMillis: 3,
            replayRunId: replayRunId, worker: "w-1")
    }

    @Test func copiesOfOneAttemptShareTheirIdWhateverTheirTimesWorkerAndAnswer() {
        let first = Self.receipt()
        var copy = first
        copy.sentAtMicros = 1_800_000_099_000_000
        copy.latencyMillis = 250
        copy.worker = "w-2"
        copy.providerMessageId = "apns-2"
        copy.source = SourcePosition(topic: "retry", partition: 5, offset: 99, timestampMillis: 2)
        copy.status = .rejected
        copy.reason = "BadDeviceToken"
        #expect(copy.receiptId == first.receiptId)
    }

    @Test(arguments: [
        ("another attempt", receipt(attempts: 2)),
        ("not sent", receipt(attempts: 0)),
        ("a replay run", receipt(replayRunId: "run-1")),
        ("another replay run", receipt(replayRunId: "run-2")),
        ("a replay run named like the live worker", receipt(replayRunId: "")),
        ("another message", receipt(messageId: "m-2")),
        ("another token", receipt(device: DeviceTarget(userId: "u-1", platform: "apns", token: "", tokenHash: "b"))),
        (
            "another platform",
            receipt(device: DeviceTarget(userId: "u-1", platform: "fcm", token: "", tokenHash: "sha256:aa"))
        ),
        (
            "another user",
            receipt(device: DeviceTarget(userId: "u-2", platform: "apns", token: "", tokenHash: "sha256:aa"))
        ),
    ])
    func aNewAttemptAReplayAndAnotherSendGetAnIdOfTheirOwn(_ change: String, _ other: Receipt) {
        #expect(other.receiptId != Self.receipt().receiptId, "\(change)")
    }

    @Test func noChoiceOfTextsMovesABoundaryBetweenParts() {
        let split = Self.receipt(
            messageId: "m", device: DeviceTarget(userId: "1:x|2:u", platform: "apns", token: "", tokenHash: "h"))
        let joined = Self.receipt(
            messageId: "m|1:x", device: DeviceTarget(userId: "u", platform: "apns", token: "", tokenHash: "h"))
        #expect(split.receiptId != joined.receiptId)
    }

    /// The name the id is made from is part of the receipts' contract: copies written by workers of different
    /// versions must share their ids.
    @Test func theIdIsTheUUIDOfTheLengthPrefixedPartsInUTF8Bytes() {
        #expect(
            Self.receipt().receiptId
                == DeterministicUUID.make(from: "receipt|3:m-1|3:u-1|4:apns|9:sha256:aa|1:1|4:live"))
        #expect(
            Self.receipt(attempts: 12, replayRunId: "run-1").receiptId
                == DeterministicUUID.make(from: "receipt|3:m-1|3:u-1|4:apns|9:sha256:aa|2:12|9:run:run-1"))
        let accented = Self.receipt(
            messageId: "mé", device: DeviceTarget(userId: "ü", platform: "fcm", token: "", tokenHash: ""))
        #expect(accented.receiptId == DeterministicUUID.make(from: "receipt|3:mé|2:ü|3:fcm|0:|1:1|4:live"))
    }

    @Test func theIdIsANameBasedUUIDWrittenFirstInTheReceipt() throws {
        let receipt = Self.receipt()
        #expect(
            receipt.receiptId.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/)
                != nil)
        #expect(String(decoding: receipt.json(), as: UTF8.self).hasPrefix(#"{"receiptId":"\#(receipt.receiptId)","#))
    }

    /// Receipts of one harness run on `value` (one record at offset 0), by user: (JSON `receiptId`, header).
    static func ids(of value: String, script: [String: [DeliveryOutcome]] = [:]) async -> [String: [String?]] {
        let harness = Harness()
        for (send, steps) in script { harness.sender.script(send, steps) }
        harness.source.add([record(value, offset: 0)])
        _ = await harness.run(untilStored: 1)
        var ids: [String: [String?]] = [:]
        for output in harness.sink.records(on: "receipts") {
            guard let receipt = try? JSONParser.parse(output.value), let user = receipt["userId"]?.stringValue else {
                continue
            }
            ids[user] = [receipt["receiptId"]?.stringValue, output.header(ReceiptID.header)]
        }
        return ids
    }

    @Test func aRecordSentAgainAfterACrashWritesTheSameIdsInBodyAndHeaderAndARetriedSendANewOne() async {
        let first = await Self.ids(of: "m1;a,b")
        let again = await Self.ids(of: "m1;a,b")
        #expect(first.count == 2)
        #expect(first.values.allSatisfy { $0[0] != nil && $0[0] == $0[1] })
        #expect(again == first)
        let retried = await Self.ids(
            of: "m1;a,b", script: ["m1/a": [.retry(status: 503, reason: "ServiceUnavailable", after: nil)]])
        #expect(retried["u-b"] == first["u-b"])
        #expect(retried["u-a"] != first["u-a"])
    }
}
