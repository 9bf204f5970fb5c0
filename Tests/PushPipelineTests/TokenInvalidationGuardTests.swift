import PushPipeline
import Testing

@Suite struct TokenInvalidationGuardTests {
    static let scope = TokenInvalidationGuard.Scope(app: "SampleApp", provider: .apns)

    /// Records `sends` answers at `nowMillis`, the first `invalid` of them "invalid token".
    static func answer(_ guardrail: inout TokenInvalidationGuard, sends: Int, invalid: Int, at nowMillis: Int64) {
        for index in 0..<sends { guardrail.record(scope, invalid: index < invalid, nowMillis: nowMillis) }
    }

    @Test func tripsAboveTheRatioOnlyWithEnoughSends() {
        var guardrail = TokenInvalidationGuard()
        Self.answer(&guardrail, sends: 199, invalid: 199, at: 1_000)
        #expect(!guardrail.isSuspended(Self.scope, nowMillis: 1_000))
        Self.answer(&guardrail, sends: 1, invalid: 1, at: 1_000)
        #expect(guardrail.isSuspended(Self.scope, nowMillis: 1_000))
        #expect(guardrail.suspendedScopes(nowMillis: 1_000) == [Self.scope])
    }

    @Test func appsOfCanonicallyEquivalentIdsAreCountedApart() {
        var guardrail = TokenInvalidationGuard()
        let composed = TokenInvalidationGuard.Scope(app: "caf\u{E9}", provider: .apns)
        let decomposed = TokenInvalidationGuard.Scope(app: "cafe\u{301}", provider: .apns)
        for _ in 0..<300 { guardrail.record(composed, invalid: true, nowMillis: 0) }
        #expect(guardrail.isSuspended(composed, nowMillis: 0))
        #expect(!guardrail.isSuspended(decomposed, nowMillis: 0))
        #expect(guardrail.suspendedScopes(nowMillis: 0).count == 1)
    }

    @Test func aRatioAtTheLimitIsNotSuspect() {
        var guardrail = TokenInvalidationGuard()
        Self.answer(&guardrail, sends: 1_000, invalid: 200, at: 0)
        #expect(!guardrail.isSuspended(Self.scope, nowMillis: 0))
        Self.answer(&guardrail, sends: 1, invalid: 1, at: 0)
        #expect(guardrail.isSuspended(Self.scope, nowMillis: 0))
    }

    @Test func resumesByItselfWhenTheRatioFalls() {
        var guardrail = TokenInvalidationGuard()
        Self.answer(&guardrail, sends: 300, invalid: 300, at: 0)
        #expect(guardrail.isSuspended(Self.scope, nowMillis: 0))
        // Fixed configuration: healthy answers dilute the window.
        Self.answer(&guardrail, sends: 1_200, invalid: 0, at: 60_000)
        #expect(!guardrail.isSuspended(Self.scope, nowMillis: 60_000))
    }

    @Test func oldAnswersLeaveTheSlidingWindow() {
        var guardrail = TokenInvalidationGuard(windowMillis: 300_000, bucketCount: 10)
        Self.answer(&guardrail, sends: 300, invalid: 300, at: 0)
        #expect(guardrail.isSuspended(Self.scope, nowMillis: 299_999))
        #expect(!guardrail.isSuspended(Self.scope, nowMillis: 300_000))
        guardrail.prune(nowMillis: 300_000)
        #expect(guardrail.suspendedScopes(nowMillis: 300_000).isEmpty)
    }

    @Test func eachAppAndProviderIsJudgedAlone() {
        var guardrail = TokenInvalidationGuard()
        Self.answer(&guardrail, sends: 300, invalid: 300, at: 0)
        let otherProvider = TokenInvalidationGuard.Scope(app: "SampleApp", provider: .fcm)
        let otherApp = TokenInvalidationGuard.Scope(app: "OtherApp", provider: .apns)
        for scope in [otherProvider, otherApp] {
            for _ in 0..<300 { guardrail.record(scope, invalid: false, nowMillis: 0) }
        }
        #expect(guardrail.suspendedScopes(nowMillis: 0) == [Self.scope])
    }

    @Test func extremeTimesNeverTrap() {
        var guardrail = TokenInvalidationGuard(windowMillis: .max, bucketCount: 1)
        guardrail.record(Self.scope, invalid: true, nowMillis: .min)
        guardrail.record(Self.scope, invalid: true, nowMillis: .max)
        #expect(!guardrail.isSuspended(Self.scope, nowMillis: .max))
        guardrail.prune(nowMillis: .min)
    }
}
