import Testing

@testable import PushPipeline

/// The receipt's bytes, pinned: what analysts and `receipts stats` read (schemas/receipt.schema.json).
@Suite struct ReceiptJSONTests {
    static let device = DeviceTarget(
        userId: "u-1", platform: "fcm", token: "raw-token", tokenHash: "sha256:ab", app: "project-1")
    static let source = SourcePosition(topic: "chat", partition: 3, offset: 42, timestampMillis: 1)

    @Test func aDeliveredReceiptIsWrittenByteForByte() {
        let receipt = Receipt(
            messageId: "m-1", room: "r\"1", type: "text", device: Self.device, status: .delivered, reason: nil,
            providerMessageId: "projects/p/messages/1", attempts: 2, source: Self.source,
            eventTimeMillis: 1_800_000_000_250, sentAtMicros: 1_800_000_001_999_999, latencyMillis: 12.5,
            replayRunId: nil, worker: "w-1")
        #expect(
            String(decoding: receipt.json(), as: UTF8.self)
                == #"{"receiptId":"d160fe97-0fb3-837b-9083-b0421ae6f39a","#
                + #""messageId":"m-1","room":"r\"1","type":"text","userId":"u-1","platform":"fcm","#
                + #""tokenHash":"sha256:ab","status":"delivered","reason":null,"#
                + #""providerMessageId":"projects/p/messages/1","attempts":2,"#
                + #""source":{"topic":"chat","partition":3,"offset":42},"eventTime":"2027-01-15T08:00:00.250Z","#
                + #""sentAt":"2027-01-15T08:00:01.999Z","latencyMs":12.5,"replayRunId":null,"worker":"w-1"}"#)
    }

    @Test func aSuspectInvalidTokenReceiptSaysSoAfterItsReasonAndOtherReceiptsDoNot() {
        var receipt = Receipt(
            messageId: "m-3", room: "r", type: "text", device: Self.device, status: .invalidToken,
            reason: "UNREGISTERED", providerMessageId: nil, attempts: 1, source: Self.source, eventTimeMillis: nil,
            sentAtMicros: nil, latencyMillis: nil, replayRunId: nil, worker: "w")
        #expect(!String(decoding: receipt.json(), as: UTF8.self).contains("suspect"))
        receipt.suspect = true
        #expect(
            String(decoding: receipt.json(), as: UTF8.self).contains(
                #""status":"invalid_token","reason":"UNREGISTERED","suspect":true,"providerMessageId":null"#))
    }

    @Test func timesBeforeTheEpochNegativeLatenciesAndMissingValuesKeepTheirShape() {
        let receipt = Receipt(
            messageId: "m-2", room: "r", type: "image", device: Self.device, status: .skipped, reason: "muted",
            providerMessageId: nil, attempts: 0, source: Self.source, eventTimeMillis: -1,
            sentAtMicros: nil, latencyMillis: -3, replayRunId: "run-9", worker: "w")
        #expect(
            String(decoding: receipt.json(), as: UTF8.self)
                == #"{"receiptId":"c6755950-1cb8-8c91-bca4-2436da82af1d","#
                + #""messageId":"m-2","room":"r","type":"image","userId":"u-1","platform":"fcm","#
                + #""tokenHash":"sha256:ab","status":"skipped","reason":"muted","providerMessageId":null,"attempts":0,"#
                + #""source":{"topic":"chat","partition":3,"offset":42},"eventTime":"1969-12-31T23:59:59.999Z","#
                + #""sentAt":null,"latencyMs":0,"replayRunId":"run-9","worker":"w"}"#)
        let late = Receipt(
            messageId: "m", room: "r", type: "t", device: Self.device, status: .expired, reason: nil,
            providerMessageId: nil, attempts: 1, source: Self.source, eventTimeMillis: Int64.max, sentAtMicros: nil,
            latencyMillis: nil, replayRunId: nil, worker: "w")
        let text = String(decoding: late.json(), as: UTF8.self)
        #expect(text.contains(#""eventTime":"9999-12-31T23:59:59.999Z""#))
        #expect(text.contains(#""latencyMs":null"#))
    }
}
