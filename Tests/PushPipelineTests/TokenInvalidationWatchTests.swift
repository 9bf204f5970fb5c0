import Observability
import PushCore
import TestSupport
import Testing

@testable import PushPipeline

/// The guard wired into the pipeline: suspect "invalid token" answers write no invalid-token record (so no tombstone
/// follows), their receipts say `"suspect": true`, and known dead tokens are sent to again while suspect.
@Suite(.timeLimit(.minutes(1))) struct TokenInvalidationWatchTests {
    /// A pipeline whose guard trips at 4 sends of one app to one provider, half of them "invalid token".
    static func harness() -> Harness {
        var harness = Harness()
        harness.invalidations = TokenInvalidationWatch(TokenInvalidationGuard(maximumRatio: 0.5, minimumSends: 4))
        return harness
    }

    static func dead(_ harness: Harness, _ sends: [String]) {
        for send in sends {
            harness.sender.script(send, [.invalidToken(status: 410, reason: "Unregistered", invalidSinceMillis: 1)])
        }
    }

    @Test func theAnswerThatTripsTheGuardAndLaterOnesWriteNoInvalidTokenRecordAndSaySuspect() async {
        let harness = Self.harness()
        Self.dead(harness, ["m1/a", "m1/b", "m1/c", "m1/d", "m2/e"])
        harness.source.add([record("m1;a,b,c,d,f1", offset: 0), record("m2;e", offset: 1)])
        #expect(await harness.run(untilStored: 2))
        let invalid = harness.sink.records(on: harness.settings.invalidTokensTopic).map(\.text)
        #expect(invalid.count == 3)
        #expect(!invalid.contains { $0.contains("token-d") || $0.contains("token-e") })
        var suspect: [String: Bool] = [:]
        for receipt in harness.receipts() {
            guard let user = receipt["userId"]?.stringValue else { continue }
            suspect[user] = receipt["suspect"] == .bool(true)
            #expect(receipt["suspect"] == nil || receipt["status"] == .string("invalid_token"))
        }
        #expect(suspect == ["u-a": false, "u-b": false, "u-c": false, "u-d": true, "u-e": true, "u-f1": false])
        #expect(harness.receiptStatuses()["u-e"] == "invalid_token")
    }

    @Test func itResumesByItselfWhenHealthyAnswersBringTheRatioDown() async {
        let harness = Self.harness()
        Self.dead(harness, ["m1/a", "m1/b", "m1/c", "m1/d", "m3/e"])
        harness.source.add([
            record("m1;a,b,c,d", offset: 0), record("m2;g,h,i,j,k", offset: 1), record("m3;e", offset: 2),
        ])
        #expect(await harness.run(untilStored: 3))
        // d trips it (4 of 4); m2's five deliveries bring it to 4 of 9, m3's answer to 5 of 10: not above half.
        let invalid = harness.sink.records(on: harness.settings.invalidTokensTopic).map(\.text)
        #expect(invalid.count == 4)
        #expect(invalid.contains { $0.contains("token-e") })
        let receipt = harness.receipts().first { $0["userId"] == .string("u-e") }
        #expect(receipt?["status"] == .string("invalid_token"))
        #expect(receipt?["suspect"] == nil)
    }

    @Test func anotherProviderOrAppIsNotSuspended() {
        let watch = TokenInvalidationWatch(TokenInvalidationGuard(maximumRatio: 0.5, minimumSends: 2))
        let apns = TokenInvalidationGuard.Scope(app: "A", provider: .apns)
        #expect(!watch.answer(apns, invalid: true, nowMillis: 0))
        #expect(watch.answer(apns, invalid: true, nowMillis: 0))
        #expect(!watch.isSuspended(.init(app: "A", provider: .fcm), nowMillis: 0))
        #expect(!watch.isSuspended(.init(app: "B", provider: .apns), nowMillis: 0))
        #expect(watch.suspendedScopes(nowMillis: 0) == [apns])
        #expect(watch.suspendedScopes(nowMillis: 600_000).isEmpty)
    }

    @Test func knownDeadTokensAreSentToWhileTheirScopeIsSuspect() throws {
        let table = InvalidTokenTable()
        table.apply(key: "apns:sha256:\(String(repeating: "a", count: 64))", value: Array("{}".utf8))
        let watch = TokenInvalidationWatch(TokenInvalidationGuard(maximumRatio: 0.5, minimumSends: 1))
        let planner = SkippingKnownInvalidTokens(inner: HashedPlanner(), table: table, invalidations: watch)
        #expect(try Self.decision(planner) == "skipped")
        _ = watch.answer(.init(app: "", provider: .apns), invalid: true, nowMillis: 0)
        #expect(try Self.decision(planner) == "send")
    }

    static func decision(_ planner: some EventPlanner) throws -> String {
        let event = try planner.plan(Array("m".utf8), nowMillis: 0).get()
        if case .send = try #require(event.devices.first).decision { return "send" }
        return "skipped"
    }
}

/// One APNs device whose token hash is `sha256:` and 64 `a`s, as the invalid-token table keys it.
private struct HashedPlanner: EventPlanner {
    func deviceBound(_ value: [UInt8]) -> Int { 1 }

    func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<String>, UndecodableEvent> {
        let target = DeviceTarget(
            userId: "u", platform: "apns", token: "t", tokenHash: "sha256:\(String(repeating: "a", count: 64))")
        return .success(
            PlannedEvent(
                messageId: "m", roomId: "r", type: "text", eventTimeMillis: nil,
                devices: [PlannedDevice(target: target, decision: .send(.apns, "m/t"))], narrowed: { _ in [] }))
    }
}
