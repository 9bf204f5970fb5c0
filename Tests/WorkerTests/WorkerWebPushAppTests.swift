import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// An app of `PUSH_APPS_DIR` with its own VAPID key and subject signs its own messages' Web Push requests.
extension WorkerWebPushTests {
    @Test func anAppsOwnVAPIDKeyAndSubjectSignItsMessages() async throws {
        let simulator = try await PushSimulator.start()
        let browser = try await Self.subscribe(simulator)
        let apps = FileManager.default.temporaryDirectory.appendingPathComponent("push-apps-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: apps) }
        let folder = apps.appendingPathComponent("SampleApp")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: folder.appendingPathComponent("app.json"))
        try Data(try TestKeys.p256.get().utf8).write(to: folder.appendingPathComponent("webpush-vapid.pem"))
        try Data(#"{"subject": "mailto:sample-app@example.com"}"#.utf8)
            .write(to: folder.appendingPathComponent("webpush.json"))
        let (key, value) = Self.record("aaa", "B1", token: browser.subscription)
        let records = [
            (topic: "push.devices", key: key, value: value),
            Self.message("imkit-app", room: "demo-room", to: ["aaa"]),
        ]
        let (status, (receipts, messages)) = try await Self.run(
            simulator, settings: ["PUSH_APPS_DIR": apps.path], records: records
        ) { run in
            (
                try await readRecords(run.kafka, topic: "push.receipts", count: 1, within: .seconds(90)),
                try await simulator.control("POST", "/control/webpush-messages", body: "{}", as: Messages.self)
            )
        }
        #expect(status == 0)
        let receipt = try JSONParser.parse(try #require(receipts.first).value)
        #expect(receipt["status"] == .string("delivered"))
        let message = try #require(messages.messages.first)
        #expect(message.vapid["sub"]?.text == "mailto:sample-app@example.com", "the app's subject, not the default's")
        #expect(message.vapid["aud"]?.text == simulator.baseURL)
    }
}
