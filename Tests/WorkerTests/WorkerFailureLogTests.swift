import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushPipeline
import TestSupport
import Testing

/// A worker whose FCM answers 503 to every send and APNs 400 to one token: its log says why, for which message,
/// room and device, once per reason and interval, and never with a raw token.
@Suite(.serialized) struct WorkerFailureLogTests {
    @Test func aFailingProvidersReasonsStatusMessageRoomAndTokenFingerprintAreInTheLog() async throws {
        let rejected = String(format: "%064x", 3)
        let run = try await EndToEnd(workerEnvironment: [
            "PUSH_RETRY_BUDGET_MS": "200", "PUSH_RETRY_BASE_MS": "20", "PUSH_RETRY_CAP_MS": "50",
            "PUSH_MAX_ATTEMPTS": "3",
        ]) { simulator in
            try await simulator.addFaultRule(#"{"path": "messages:send$", "status": 503}"#)
            try await simulator.addFaultRule(#"{"path": "^/3/device/\#(rejected)$", "status": 400}"#)
        }
        let count = 6
        for index in 0..<count {
            try await run.produce(
                EndToEnd.event(index, apnsToken: String(format: "%064x", index + 1)), key: "r-\(index % 3)")
        }
        try await run.produce("{\"id\": 5", key: "r-x")
        // Every FCM device ends in the retry topic or the dead letters, every APNs one with a receipt.
        _ = try await run.read(
            ["push.receipts", "push.dlq"] + RetryTiers(base: "push.retry").topics, within: .seconds(60)
        ) { records in
            records.filter { $0.topic == "push.receipts" }.count >= count
                && records.filter { $0.topic != "push.receipts" }.count >= count + 1
        }
        #expect(await run.stop() == 0)

        let lines = run.worker.stderr.text.split(separator: "\n").map(String.init)
        func saying(_ message: String) -> [String] { lines.filter { $0.contains(#""message":"\#(message)""#) } }
        let failed = saying("provider send failed")
        #expect(!failed.isEmpty, "\(lines.suffix(40))")
        for line in failed {
            #expect(line.contains(#""http.status":503"#) && line.contains(#""push.provider":"fcm""#), "\(line)")
            #expect(line.contains(#""push.message_id":"m-"#) && line.contains(#""push.room":"r-"#), "\(line)")
            #expect(line.contains(#""push.token":"sha256:"#) && line.contains(#""push.reason":"#), "\(line)")
        }
        // Many 503s of one reason, one line per 10 s: the storm is not in the log line by line.
        #expect(failed.count < count)
        let refused = saying("provider rejected the send")
        #expect(refused.count == 1 && refused[0].contains(#""http.status":400"#), "\(refused)")
        #expect(!saying("handed to the retry topic").isEmpty || !saying("dead-lettered").isEmpty, "\(lines.suffix(40))")
        let record = saying("record dead-lettered")
        #expect(record.count == 1 && record[0].contains(#""push.reason":"decode_error""#), "\(record)")
        #expect(!lines.contains { $0.contains(rejected) || $0.contains("fcm-token-") }, "a raw token was logged")
    }
}
