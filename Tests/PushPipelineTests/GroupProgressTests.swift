import KafkaTypes
import PushCore
import Testing

@testable import PushPipeline

@Suite struct GroupProgressTests {
    private static let delivered = Attempt(
        outcome: .delivered(providerMessageId: "id"), sentAtMicros: 1, latencyMillis: 1)

    /// A planned record of one device per entry of `devices`: a send of that request, or skipped (`nil`).
    private static func planned(_ devices: [String?], offset: Int64) -> PlannedRecord<String> {
        let target = DeviceTarget(userId: "u", platform: "apns", token: "t", tokenHash: "sha256:t")
        let event = PlannedEvent<String>(
            messageId: "m", roomId: "r", type: "text", eventTimeMillis: nil,
            devices: devices.map {
                PlannedDevice(target: target, decision: $0.map { .send(.apns, $0) } ?? .skipped(reason: .muted))
            },
            narrowed: { _ in [] })
        let record = KafkaRecord(topic: "chat", partition: 0, offset: offset, key: nil, value: [])
        return PlannedRecord(
            record: record, source: SourcePosition(of: record, trustingHeaders: false), plan: .event(event), units: 1)
    }

    /// The results a plan settles: a skip's.
    private static func unsent(_ event: PlannedEvent<String>) -> [StartedRecord<String>.Device?] {
        event.devices.map { device in
            if case .send = device.decision { return nil }
            return .done(.finished(FinishedDevice(.skipped, reason: "muted")))
        }
    }

    @Test func aRecordIsReadyOnceEverySendOfItWasAnswered() {
        var progress = GroupProgress(
            [Self.planned(["a", "b"], offset: 0), Self.planned([nil], offset: 1), Self.planned(["c"], offset: 2)],
            unsent: Self.unsent)
        #expect(progress.takeSends().map(\.request) == ["a", "b", "c"])
        #expect(progress.takeSends().isEmpty)
        #expect(progress.readyAtOnce == [1])
        #expect(progress.arrived(2, Self.delivered) == 2)
        #expect(progress.arrived(0, Self.delivered) == nil)
        #expect(progress.isWaiting)
        #expect(progress.arrived(1, Self.delivered) == 0)
        #expect(!progress.isWaiting)
    }

    @Test func aRepeatedOrUnknownAnswerIsIgnored() {
        var progress = GroupProgress([Self.planned(["a", "b"], offset: 0)], unsent: Self.unsent)
        #expect(progress.arrived(0, Self.delivered) == nil)
        #expect(progress.arrived(0, Self.delivered) == nil)
        #expect(progress.arrived(7, Self.delivered) == nil)
        #expect(progress.arrived(-1, Self.delivered) == nil)
        #expect(progress.isWaiting)
        #expect(progress.answerTheRest(with: DeviceDelivery<String>.unanswered) == [0])
        #expect(!progress.isWaiting)
        guard case .attempted(_, let attempt) = progress.devices[0][1] else {
            Issue.record("the unanswered send has no attempt")
            return
        }
        #expect(attempt == DeviceDelivery<String>.unanswered)
    }

    @Test func aRecordThatWentOnIsForgottenAndALateAnswerForItIgnored() {
        var progress = GroupProgress(
            [Self.planned(["a"], offset: 0), Self.planned(["b"], offset: 1)], unsent: Self.unsent)
        #expect(progress.arrived(0, Self.delivered) == 0)
        progress.forget(0)
        #expect(progress.devices[0].isEmpty)
        #expect(progress.arrived(0, Self.delivered) == nil)
        #expect(progress.answerTheRest(with: DeviceDelivery<String>.unanswered) == [1])
    }
}
