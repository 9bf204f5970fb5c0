import KafkaTypes
import PushCore
import PushPipeline
import Synchronization
import TestSupport
import Testing

@testable import Replay

@Suite struct ReplayPartsTests {
    @Test(arguments: [("90s", 90), ("30m", 1800), ("6h", 21_600), ("2d", 172_800), ("36500d", 3_153_600_000)])
    func ageLimitsReadAWholeNumberAndAUnit(text: String, seconds: Int64) {
        #expect(AgeLimit.parse(text) == .seconds(seconds))
    }

    @Test(arguments: ["", "s", "0s", "-5m", "1.5h", "10w", "36501d", "9223372036854775807d", "m5"])
    func ageLimitsOfAnyOtherFormAreRefused(text: String) {
        #expect(AgeLimit.parse(text) == nil)
    }

    @Test func pacingSpacesSendsEvenlyAndNeverBurstsToCatchUp() {
        var pacing = SendPacing(sendsPerSecond: 200)
        #expect(pacing.intervalMicros == 5_000)
        #expect((0..<4).map { _ in pacing.reserve(nowMicros: 1_000_000) } == [0, 5_000, 10_000, 15_000])
        // Idle for a second: the next send goes now, the one after it one interval later, not at once.
        #expect(pacing.reserve(nowMicros: 2_000_000) == 0)
        #expect(pacing.reserve(nowMicros: 2_000_000) == 5_000)
        #expect(SendPacing(sendsPerSecond: 0).intervalMicros == 1_000_000)
    }

    @Test func deliveredSendsRememberDeliveredAndDeadTokensOnly() {
        var sends = DeliveredSends()
        sends.add(messageId: "m-1", tokenHash: "sha256:a", status: "delivered")
        sends.add(messageId: "m-1", tokenHash: "sha256:b", status: "invalid_token")
        sends.add(messageId: "m-1", tokenHash: "sha256:c", status: "dead_lettered")
        #expect(sends.outcome(messageId: "m-1", tokenHash: "sha256:a") == .delivered)
        #expect(sends.outcome(messageId: "m-1", tokenHash: "sha256:b") == .invalidToken)
        #expect(sends.outcome(messageId: "m-1", tokenHash: "sha256:c") == nil)
        #expect(sends.outcome(messageId: "m-2", tokenHash: "sha256:a") == nil)
        #expect(sends.count == 2)
    }

    @Test func messageIdsOfOtherBytesAreOtherMessagesEvenWhenCanonicallyEquivalent() {
        var sends = DeliveredSends()
        sends.add(messageId: "caf\u{E9}", tokenHash: "sha256:a", status: "delivered")
        #expect(sends.outcome(messageId: "caf\u{E9}", tokenHash: "sha256:a") == .delivered)
        #expect(sends.outcome(messageId: "cafe\u{301}", tokenHash: "sha256:a") == nil)
    }

    @Test func aSuspectInvalidTokenReceiptDoesNotKeepTheSendFromBeingReplayed() {
        var sends = DeliveredSends()
        sends.add(messageId: "m-1", tokenHash: "sha256:b", status: "invalid_token", suspect: true)
        #expect(sends.outcome(messageId: "m-1", tokenHash: "sha256:b") == nil)
        #expect(sends.count == 0)
    }

    @Test func theReplayPlannerSkipsDeliveredSendsAndExpiresStaleEvents() throws {
        var delivered = DeliveredSends()
        delivered.add(messageId: "m-1", tokenHash: "sha256:a1", status: "delivered")
        delivered.add(messageId: "m-1", tokenHash: "sha256:fa", status: "invalid_token")
        let planner = ReplayPlanner(inner: FakePlanner(), maxAgeMillis: 60_000, delivered: delivered)
        let created: Int64 = 1_800_000_000_000  // the fake planner's event time
        let fresh = try planner.plan(Array("m-1;a1,fa,a2,skip1".utf8), nowMillis: created + 59_000).get()
        #expect(
            fresh.devices.map(\.decision.summary) == [
                "skipped already_delivered", "skipped invalid_token", "send", "skipped muted",
            ])
        let stale = try planner.plan(Array("m-1;a1,a2".utf8), nowMillis: created + 61_000).get()
        #expect(stale.devices.map(\.decision.summary) == ["expired", "expired"])
        #expect(throws: UndecodableEvent.self) { try planner.plan(Array("garbage".utf8), nowMillis: 0).get() }
    }

    @Test func theReplayPlannerPreparesThroughItsInnerPlannerOnce() throws {
        var delivered = DeliveredSends()
        delivered.add(messageId: "m-1", tokenHash: "sha256:a1", status: "delivered")
        let inner = PreparingPlanner()
        let planner = ReplayPlanner(inner: inner, maxAgeMillis: nil, delivered: delivered)
        let prepared = planner.prepare(Array("m-1;a1,a2".utf8))
        #expect(prepared.deviceBound == 2)
        let event = try prepared.plan(nowMillis: 1_800_000_000_000).get()
        #expect(event.devices.map(\.decision.summary) == ["skipped already_delivered", "send"])
        #expect(inner.calls == ["prepare"])
    }

    /// `FakePlanner` that records which of its entry points the replay planner used.
    final class PreparingPlanner: EventPlanner {
        private let fake = FakePlanner()
        private let recorded = Mutex<[String]>([])

        var calls: [String] { recorded.withLock { $0 } }

        func deviceBound(_ value: [UInt8]) -> Int {
            recorded.withLock { $0.append("deviceBound") }
            return fake.deviceBound(value)
        }

        func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<String>, UndecodableEvent> {
            recorded.withLock { $0.append("plan") }
            return fake.plan(value, nowMillis: nowMillis)
        }

        func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<String> {
            recorded.withLock { $0.append("prepare") }
            let fake = fake
            return PreparedPlan(deviceBound: fake.deviceBound(value)) { fake.plan(value, nowMillis: $0) }
        }
    }

    @Test func theSummarySaysWhereToResumeAndReadsAsJSON() throws {
        var summary = ReplaySummary(runId: "run-1", topic: "chat.messages", dryRun: false)
        summary.records = 7
        summary.sends = 12
        summary.statuses = ["delivered": 11, "invalid_token": 1]
        summary.skipped = ["already_delivered": 3]
        summary.stoppedAt = [1: 40, 0: 1200]
        #expect(summary.resumeFrom == "0:1200,1:40")
        #expect(summary.text.contains("resume with: --from 0:1200,1:40"))
        let json = try JSONParser.parse(Array(summary.json.utf8))
        #expect(json["runId"] == .string("run-1"))
        #expect(json["statuses"]?["delivered"] == .number("11"))
        #expect(json["skipped"]?["already_delivered"] == .number("3"))
        #expect(json["sends"] == .number("12"))
        summary.recordsInWindow = 17
        #expect(
            summary.progressLine(elapsedSeconds: 2)
                == "replay run-1: records 7/17, 6 sends/s, delivered 11, invalid_token 1, ETA 3 s")
        // Watermarks are the broker's word: an absurd window gives no estimate rather than a trap.
        summary.recordsInWindow = Int64.max
        #expect(summary.progressLine(elapsedSeconds: 1e9).hasSuffix("ETA -"))
    }
}

extension DeviceAction {
    /// A short description for tables of expected decisions.
    fileprivate var summary: String {
        switch self {
        case .send: "send"
        case .skipped(let reason): "skipped \(reason)"
        case .expired: "expired"
        case .rejected(let reason): "rejected \(reason)"
        case .deadLetter(let reason, _): "dead letter \(reason)"
        }
    }
}

@Suite struct ReplayRunIdTests {
    @Test func aGeneratedRunIdSaysWhenTheRunStartedAndIsAValidRunId() {
        let runId = ReplayOptions.generatedRunId(nowMillis: 1_764_496_800_000)
        #expect(runId.hasPrefix("replay-20251130T100000Z-"))
        #expect(ReplayRunID.isValid(runId))
    }
}
