import ReceiptAnalytics
import Testing

@Suite struct ReceiptFactsTests {
    @Test func readsAReceiptOfTheCurrentContract() throws {
        let json = """
            {"messageId":"m-1","room":"r-1","type":"image","userId":"u-2","platform":"fcm","tokenHash":"sha256:00",
            "status":"delivered","reason":null,"providerMessageId":"p","attempts":2,"source":{"topic":"t","partition":0,
            "offset":5},"eventTime":"2026-11-29T12:00:00.000Z","sentAt":"2026-11-29T12:00:01.250Z","latencyMs":12.5,
            "replayRunId":"run-7","worker":"pod-1"}
            """
        let facts = try #require(ReceiptFacts(json: Array(json.utf8), recordTimestampMillis: 5))
        #expect(
            facts
                == ReceiptFacts(
                    messageId: "m-1", type: "image", platform: "fcm", status: "delivered", reason: nil, attempts: 2,
                    latencyMillis: 12.5, timeMillis: 1_795_953_601_250, replayRunId: "run-7", worker: "pod-1"))
    }

    @Test func readsTheSuspectMarkOnlyWhenItIsTrue() throws {
        let receipt = #"{"messageId":"m","type":"text","platform":"apns","status":"invalid_token","suspect":"#
        #expect(ReceiptFacts(json: Array((receipt + "true}").utf8), recordTimestampMillis: nil)?.suspect == true)
        #expect(ReceiptFacts(json: Array((receipt + "false}").utf8), recordTimestampMillis: nil)?.suspect == false)
        #expect(ReceiptFacts(json: Array((receipt + #""yes"}"#).utf8), recordTimestampMillis: nil)?.suspect == false)
    }

    @Test func readsAnOlderInvalidTokenReceiptWithItsRawTokenWithoutKeepingTheToken() throws {
        let json = """
            {"messageId":"m-2","type":"text","platform":"apns","status":"invalid_token","reason":"Unregistered",
            "token":"3f1c6a","tokenTimestamp":null,"attempts":1,"worker":"w"}
            """
        let facts = try #require(ReceiptFacts(json: Array(json.utf8), recordTimestampMillis: 1_000))
        #expect(facts.status == "invalid_token")
        #expect(facts.timeMillis == 1_000)
        #expect(!"\(facts)".contains("3f1c6a"))
    }

    @Test(arguments: [
        "not json", "[]", "{}", #"{"status":"delivered","platform":"fcm","type":"text"}"#,
        #"{"status":7,"platform":"fcm","type":"text","messageId":"m"}"#,
    ])
    func whatIsNotAReceiptIsNotRead(text: String) {
        #expect(ReceiptFacts(json: Array(text.utf8), recordTimestampMillis: nil) == nil)
    }

    @Test func hostileNumbersAndTextsAreDroppedOrBounded() throws {
        let long = String(repeating: "x", count: 100_000)
        let json = """
            {"messageId":"m","type":"\(long)","platform":"fcm","status":"rejected","attempts":1e300,
            "latencyMs":-4,"sentAt":"9999-99-99T00:00:00Z"}
            """
        let facts = try #require(ReceiptFacts(json: Array(json.utf8), recordTimestampMillis: Int64.min))
        #expect(facts.type.count == ReceiptFacts.maximumFieldLength)
        #expect(facts.attempts == nil)
        #expect(facts.latencyMillis == nil)
        #expect(facts.timeMillis == ReceiptFacts.earliestMillis)
    }
}
