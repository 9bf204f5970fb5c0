import KafkaTypes
import PushCore
import Testing

@testable import PushPipeline

@Suite struct GroupProgressTests {
    private static let delivered = Attempt(
        provider: .apns, outcome: .delivered(providerMessageId: "id"), sentAtMicros: 1, latencyMillis: 1)

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

    /// `records` joined to `progress`, their sends' requests and the records ready at once.
    private static func add(
        _ records: [PlannedRecord<String>], to progress: inout GroupProgress<String>
    ) -> (requests: [String], firstSend: Int, ready: [Int]) {
        let joined = progress.add(records.map(Optional.some)[...], unsent: Self.unsent)
        return (joined.sends.compactMap { $0?.request }, joined.firstSend, joined.ready)
    }

    @Test func aRecordIsReadyOnceEverySendOfItWasAnswered() {
        var progress = GroupProgress<String>()
        let joined = Self.add(
            [Self.planned(["a", "b"], offset: 0), Self.planned([nil], offset: 1), Self.planned(["c"], offset: 2)],
            to: &progress)
        #expect(joined.requests == ["a", "b", "c"])
        #expect(joined.firstSend == 0)
        #expect(joined.ready == [1])
        #expect(progress.arrived(2, Self.delivered) == 2)
        #expect(progress.arrived(0, Self.delivered) == nil)
        #expect(progress.isWaiting)
        #expect(progress.arrived(1, Self.delivered) == 0)
        #expect(!progress.isWaiting)
    }

    /// Records joining later are numbered after the earlier ones, their sends after the earlier sends.
    @Test func recordsJoiningLaterAreNumberedAfterTheEarlierOnes() {
        var progress = GroupProgress<String>()
        _ = Self.add([Self.planned(["a", "b"], offset: 0)], to: &progress)
        let later = Self.add([Self.planned([nil], offset: 1), Self.planned(["c"], offset: 2)], to: &progress)
        #expect(later.requests == ["c"])
        #expect(later.firstSend == 2)
        #expect(later.ready == [1])
        #expect(progress.arrived(2, Self.delivered) == 2)
        #expect(progress.isWaiting)
        #expect(progress.arrived(0, Self.delivered) == nil)
        #expect(progress.arrived(1, Self.delivered) == 0)
        #expect(!progress.isWaiting)
    }

    @Test func aRepeatedOrUnknownAnswerIsIgnored() {
        var progress = GroupProgress<String>()
        _ = Self.add([Self.planned(["a", "b"], offset: 0)], to: &progress)
        #expect(progress.arrived(0, Self.delivered) == nil)
        #expect(progress.arrived(0, Self.delivered) == nil)
        #expect(progress.arrived(7, Self.delivered) == nil)
        #expect(progress.arrived(-1, Self.delivered) == nil)
        #expect(progress.isWaiting)
        #expect(progress.answerTheRest(with: DeviceDelivery<String>.unanswered(to:)) == [0])
        #expect(!progress.isWaiting)
        guard case .attempted(let attempt) = progress.devices[0][1] else {
            Issue.record("the unanswered send has no attempt")
            return
        }
        #expect(attempt == DeviceDelivery<String>.unanswered(to: .apns))
    }

    @Test func aRecordThatWentOnIsForgottenAndALateAnswerForItIgnored() {
        var progress = GroupProgress<String>()
        _ = Self.add([Self.planned(["a"], offset: 0), Self.planned(["b"], offset: 1)], to: &progress)
        #expect(progress.arrived(0, Self.delivered) == 0)
        #expect(progress.take(0).count == 1)
        #expect(progress.devices[0].isEmpty)
        #expect(progress.take(0).isEmpty)
        #expect(progress.take(9).isEmpty)
        #expect(progress.arrived(0, Self.delivered) == nil)
        #expect(progress.answerTheRest(with: DeviceDelivery<String>.unanswered(to:)) == [1])
    }
}
