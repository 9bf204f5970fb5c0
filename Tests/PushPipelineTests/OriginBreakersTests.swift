import Testing

@testable import PushPipeline

@Suite struct OriginBreakersTests {
    static let (a, b, c) = ("https://a.example", "https://b.example", "https://c.example")

    func breakers(capacity: Int = 10) -> OriginBreakers {
        OriginBreakers(threshold: 2, probeIntervalMillis: 1_000, capacity: capacity, idleMillis: 60_000)
    }

    @Test func anOriginsFailuresOpenItsBreakerAloneAndItHoldsBackItsSendsUntilTheProbe() {
        var breakers = breakers()
        #expect(breakers.record(providerFailure: true, origin: Self.a, nowMillis: 100) == nil)
        #expect(breakers.record(providerFailure: true, origin: Self.a, nowMillis: 200) == true)
        #expect(breakers.isOpen(Self.a))
        #expect(breakers.admit(Self.a, nowMillis: 300) == 1_200, "held back until the probe at 200 + 1,000")
        #expect(breakers.admit(Self.b, nowMillis: 300) == nil)
        #expect(breakers.openCount == 1)
        #expect(breakers.admit(Self.a, nowMillis: 1_200) == nil, "the probe")
        #expect(breakers.admit(Self.a, nowMillis: 1_300) == 1_300, "one probe at a time")
        #expect(breakers.record(providerFailure: true, origin: Self.a, nowMillis: 1_400) == nil)
        #expect(breakers.admit(Self.a, nowMillis: 1_500) == 2_400)
    }

    @Test func aSuccessClosesTheBreakerAndForgetsTheOrigin() {
        var breakers = breakers()
        _ = breakers.record(providerFailure: true, origin: Self.a, nowMillis: 100)
        _ = breakers.record(providerFailure: true, origin: Self.b, nowMillis: 100)
        #expect(breakers.record(providerFailure: true, origin: Self.a, nowMillis: 200) == true)
        #expect(breakers.admit(Self.a, nowMillis: 1_200) == nil)
        #expect(breakers.record(providerFailure: false, origin: Self.a, nowMillis: 1_300) == false)
        #expect(breakers.record(providerFailure: false, origin: Self.b, nowMillis: 1_300) == nil)
        #expect(breakers.trackedCount == 0)
        #expect(breakers.openCount == 0)
    }

    @Test func pastItsCapacityTheOriginWhoseLastOutcomeIsOldestMakesRoom() {
        var breakers = breakers(capacity: 2)
        _ = breakers.record(providerFailure: true, origin: Self.a, nowMillis: 100)
        _ = breakers.record(providerFailure: true, origin: Self.a, nowMillis: 150)
        _ = breakers.record(providerFailure: true, origin: Self.b, nowMillis: 200)
        _ = breakers.record(providerFailure: true, origin: Self.a, nowMillis: 250)
        _ = breakers.record(providerFailure: true, origin: Self.c, nowMillis: 300)
        #expect(breakers.trackedCount == 2)
        #expect(breakers.isOpen(Self.a), "a's last outcome is newer than b's")
        _ = breakers.record(providerFailure: true, origin: Self.c, nowMillis: 400)
        #expect(breakers.isOpen(Self.c))
        #expect(breakers.openCount == 2)
    }

    @Test func anOriginWithoutOutcomesForTheIdleTimeIsForgottenItsStuckProbeIncluded() {
        var breakers = breakers()
        _ = breakers.record(providerFailure: true, origin: Self.a, nowMillis: 0)
        _ = breakers.record(providerFailure: true, origin: Self.a, nowMillis: 0)
        #expect(breakers.admit(Self.a, nowMillis: 1_000) == nil, "a probe that never comes back")
        #expect(breakers.admit(Self.a, nowMillis: 59_000) != nil)
        _ = breakers.record(providerFailure: true, origin: Self.b, nowMillis: 60_000)
        #expect(!breakers.isOpen(Self.a))
        #expect(breakers.admit(Self.a, nowMillis: 60_000) == nil)
        #expect(breakers.trackedCount == 1)
    }
}
