import KafkaTypes
import PushCore
import Testing

@testable import PushPipeline

/// A record's outputs, pinned byte for byte: every receipt, invalid-token, retry and dead-letter record of one
/// event, with its topic, key, headers and value (the contract `docs/receipts.md` describes and the analytics kit
/// reads).
@Suite struct RecordOutputsBytesTests {
    static let traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    static func device(_ index: Int, platform: String = "fcm") -> DeviceTarget {
        DeviceTarget(
            userId: "u-\(index)", platform: platform, token: "token-\(index)", tokenHash: "sha256:\(index)\(index)",
            app: "app-\(index)")
    }

    static func failure(_ reason: DeadLetterReason, attempts: Int) -> DeliveryFailure {
        DeliveryFailure(
            reason: reason, message: "failed \(attempts)", status: 503, attempts: attempts,
            firstFailureMillis: 1_800_000_000_100)
    }

    /// One line per output: topic, key, headers (`name=value`, `;`-separated), then the value.
    static func lines(_ outputs: [KafkaProducerRecord]) -> [String] {
        outputs.map { output in
            let key = output.key.map { String(decoding: $0, as: UTF8.self) } ?? "-"
            let headers = output.headers.map { "\($0.name)=\(String(decoding: $0.value ?? [], as: UTF8.self))" }
            return "\(output.topic) | \(key) | \(headers.joined(separator: ";")) | \(output.text)"
        }
    }

    @Test func everyOutputOfAnEventIsWrittenByteForByte() {
        var settings = Harness().settings
        settings.worker = "w-1"
        let input = record(
            "event", offset: 9, topic: "retry-1000",
            headers: [
                KafkaHeader(name: "x-replay-run-id", text: "run-7"),
                KafkaHeader(name: "traceparent", text: Self.traceParent),
            ])
        let delivered = Attempt(
            provider: .apns, outcome: .delivered(providerMessageId: "projects/p/messages/1"),
            sentAtMicros: 1_800_000_001_999_999, latencyMillis: 12.5)
        let invalid = Attempt(
            provider: .fcm, outcome: .invalidToken(status: 410, reason: "Unregistered", invalidSinceMillis: nil),
            sentAtMicros: 1_800_000_002_000_000, latencyMillis: 3)
        let results: [(DeviceTarget, DeviceResult)] = [
            (Self.device(0, platform: "apns"), .finished(FinishedDevice(.delivered, attempt: delivered, attempts: 1))),
            (
                Self.device(1),
                .finished(
                    FinishedDevice(
                        .invalidToken, reason: "Unregistered", attempt: invalid, attempts: 2,
                        tokenInvalidSinceMillis: 1_700_000_000_000))
            ),
            (
                Self.device(2),
                .finished(FinishedDevice(.invalidToken, reason: "UNREGISTERED", attempt: invalid, attempts: 1))
            ),
            (Self.device(3), .finished(FinishedDevice(.skipped, reason: "muted"))),
            (Self.device(4), .retryLater(Self.failure(.transientFailure, attempts: 2), dueMillis: 1_800_000_030_000)),
            (Self.device(5), .retryLater(Self.failure(.transientFailure, attempts: 3), dueMillis: 1_800_000_020_000)),
            (Self.device(6), .deadLettered(Self.failure(.retriesExhausted, attempts: 4))),
            (Self.device(7, platform: "apns-voip"), .deadLettered(Self.failure(.payloadTooLarge, attempts: 0))),
        ]
        let outputs = RecordOutputs(settings: settings).forEvent(
            record: input, source: SourcePosition(topic: "chat", partition: 2, offset: 40, timestampMillis: 5),
            messageId: "m-1", appID: "SampleApp", room: "r-1", type: "text", eventTimeMillis: 1_800_000_000_250,
            results: results.map(\.1), target: { results[$0].0 },
            narrow: { Array("narrowed \($0)".utf8) }, nowMillis: 1_800_000_000_000, suspect: [2])
        let expected = #"""
            receipts | m-1 | x-receipt-id=b23122df-41ca-8745-a36c-102d663b13e5 | {"receiptId":"b23122df-41ca-874\#
            5-a36c-102d663b13e5","messageId":"m-1","room":"r-1","type":"text","userId":"u-0","platform":"apns","\#
            tokenHash":"sha256:00","status":"delivered","reason":null,"providerMessageId":"projects/p/messages/1\#
            ","attempts":1,"source":{"topic":"chat","partition":2,"offset":40},"eventTime":"2027-01-15T08:00:00.\#
            250Z","sentAt":"2027-01-15T08:00:01.999Z","latencyMs":12.5,"replayRunId":"run-7","traceparent":"00-4\#
            bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","worker":"w-1"}
            push.invalid-tokens | fcm:sha256:11 |  | {"platform":"fcm","token":"token-1","tokenHash":"sha256:11"\#
            ,"userId":"u-1","app":"app-1","appID":"SampleApp","reason":"Unregistered","invalidSince":"2023-11-14\#
            T22:13:20.000Z","messageId":"m-1","worker":"w-1"}
            receipts | m-1 | x-receipt-id=96b27aca-6bfa-8bfa-af79-0ddbf1d9bceb | {"receiptId":"96b27aca-6bfa-8bf\#
            a-af79-0ddbf1d9bceb","messageId":"m-1","room":"r-1","type":"text","userId":"u-1","platform":"fcm","t\#
            okenHash":"sha256:11","status":"invalid_token","reason":"Unregistered","providerMessageId":null,"att\#
            empts":2,"source":{"topic":"chat","partition":2,"offset":40},"eventTime":"2027-01-15T08:00:00.250Z",\#
            "sentAt":"2027-01-15T08:00:02.000Z","latencyMs":3,"replayRunId":"run-7","traceparent":"00-4bf92f3577\#
            b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","worker":"w-1"}
            receipts | m-1 | x-receipt-id=b0819aa6-a12d-86aa-b8c0-838a8046a028 | {"receiptId":"b0819aa6-a12d-86a\#
            a-b8c0-838a8046a028","messageId":"m-1","room":"r-1","type":"text","userId":"u-2","platform":"fcm","t\#
            okenHash":"sha256:22","status":"invalid_token","reason":"UNREGISTERED","suspect":true,"providerMessa\#
            geId":null,"attempts":1,"source":{"topic":"chat","partition":2,"offset":40},"eventTime":"2027-01-15T\#
            08:00:00.250Z","sentAt":"2027-01-15T08:00:02.000Z","latencyMs":3,"replayRunId":"run-7","traceparent"\#
            :"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","worker":"w-1"}
            receipts | m-1 | x-receipt-id=ab953e75-ba51-8921-bc4b-31d2bb723a2c | {"receiptId":"ab953e75-ba51-892\#
            1-bc4b-31d2bb723a2c","messageId":"m-1","room":"r-1","type":"text","userId":"u-3","platform":"fcm","t\#
            okenHash":"sha256:33","status":"skipped","reason":"muted","providerMessageId":null,"attempts":0,"sou\#
            rce":{"topic":"chat","partition":2,"offset":40},"eventTime":"2027-01-15T08:00:00.250Z","sentAt":null\#
            ,"latencyMs":null,"replayRunId":"run-7","traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0\#
            ba902b7-01","worker":"w-1"}
            receipts | m-1 | x-receipt-id=7960c9e0-5565-8761-a14d-58c8e2fc7939 | {"receiptId":"7960c9e0-5565-876\#
            1-a14d-58c8e2fc7939","messageId":"m-1","room":"r-1","type":"text","userId":"u-6","platform":"fcm","t\#
            okenHash":"sha256:66","status":"dead_lettered","reason":"retries_exhausted","providerMessageId":null\#
            ,"attempts":4,"source":{"topic":"chat","partition":2,"offset":40},"eventTime":"2027-01-15T08:00:00.2\#
            50Z","sentAt":null,"latencyMs":null,"replayRunId":"run-7","traceparent":"00-4bf92f3577b34da6a3ce929d\#
            0e0e4736-00f067aa0ba902b7-01","worker":"w-1"}
            receipts | m-1 | x-receipt-id=c6a6ca4e-2031-8b66-9061-fe6e88193acf | {"receiptId":"c6a6ca4e-2031-8b6\#
            6-9061-fe6e88193acf","messageId":"m-1","room":"r-1","type":"text","userId":"u-7","platform":"apns-vo\#
            ip","tokenHash":"sha256:77","status":"dead_lettered","reason":"payload_too_large","providerMessageId\#
            ":null,"attempts":0,"source":{"topic":"chat","partition":2,"offset":40},"eventTime":"2027-01-15T08:0\#
            0:00.250Z","sentAt":null,"latencyMs":null,"replayRunId":"run-7","traceparent":"00-4bf92f3577b34da6a3\#
            ce929d0e0e4736-00f067aa0ba902b7-01","worker":"w-1"}
            retry-60000 | room-a | x-dlq-reason=transient_failure;x-dlq-error=failed 3;x-dlq-status=503;x-source\#
            -topic=chat;x-source-partition=2;x-source-offset=40;x-source-timestamp=5;x-source-group=group-1;x-at\#
            tempts=3;x-first-failure=1800000000100;x-worker=w-1;x-retry-due=1800000060000;x-replay-run-id=run-7;\#
            traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 | narrowed [4, 5]
            dlq | room-a | x-dlq-reason=retries_exhausted;x-dlq-error=failed 4;x-dlq-status=503;x-source-topic=c\#
            hat;x-source-partition=2;x-source-offset=40;x-source-timestamp=5;x-source-group=group-1;x-attempts=4\#
            ;x-first-failure=1800000000100;x-worker=w-1;x-replay-run-id=run-7;traceparent=00-4bf92f3577b34da6a3c\#
            e929d0e0e4736-00f067aa0ba902b7-01 | narrowed [6]
            dlq | room-a | x-dlq-reason=payload_too_large;x-dlq-error=failed 0;x-dlq-status=503;x-source-topic=c\#
            hat;x-source-partition=2;x-source-offset=40;x-source-timestamp=5;x-source-group=group-1;x-attempts=0\#
            ;x-first-failure=1800000000100;x-worker=w-1;x-replay-run-id=run-7;traceparent=00-4bf92f3577b34da6a3c\#
            e929d0e0e4736-00f067aa0ba902b7-01 | narrowed [7]
            """#
        #expect(Self.lines(outputs).joined(separator: "\n") == expected)
    }
}
