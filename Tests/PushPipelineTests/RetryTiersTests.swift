import Testing

@testable import PushPipeline

@Suite struct RetryTiersTests {
    static let tiers = RetryTiers(base: "push.retry")
    static let now: Int64 = 1_800_000_000_000

    @Test func tierTopicsAreTheBaseNameAndTheDelayInMilliseconds() {
        #expect(
            Self.tiers.topics == [
                "push.retry-1000", "push.retry-10000", "push.retry-60000", "push.retry-600000", "push.retry-3600000",
            ])
        #expect(Self.tiers.contains("push.retry-60000"))
        #expect(!Self.tiers.contains("push.retry"))
        #expect(!Self.tiers.contains("push.retry-2000"))
        #expect(!Self.tiers.contains("push.retry-060000"))
    }

    @Test func delaysAreSortedWithoutDuplicatesAndNeverEmpty() {
        let tiers = RetryTiers(base: "r", delays: [.seconds(10), .seconds(1), .seconds(10), .zero])
        #expect(tiers.delaysMillis == [1, 1000, 10_000])
        #expect(RetryTiers(base: "r", delays: []).delaysMillis == Self.tiers.delaysMillis)
    }

    @Test(arguments: [
        (Int64(0), "push.retry-1000", Int64(1000)),
        (1, "push.retry-1000", 1000),
        (1000, "push.retry-1000", 1000),
        (1001, "push.retry-10000", 10_000),
        (45_000, "push.retry-60000", 60_000),
        (600_000, "push.retry-600000", 600_000),
        (3_600_000, "push.retry-3600000", 3_600_000),
    ])
    func aRecordGoesToTheShortestTierThatCoversItsWaitAndIsTakenUpAfterThatTiersDelay(
        wait: Int64, topic: String, delay: Int64
    ) {
        let route = Self.tiers.route(dueMillis: Self.now + wait, nowMillis: Self.now)
        #expect(route == RetryTiers.Route(topic: topic, takeUpMillis: Self.now + delay, notBeforeMillis: nil))
    }

    @Test func aWaitBeyondTheLongestTierGoesThereWithItsRealDueTime() {
        let due = Self.now + 86_400_000
        let route = Self.tiers.route(dueMillis: due, nowMillis: Self.now)
        #expect(route.topic == "push.retry-3600000")
        #expect(route.takeUpMillis == Self.now + 3_600_000)
        #expect(route.notBeforeMillis == due)
    }

    @Test func aDueTimeInThePastGoesToTheShortestTier() {
        #expect(Self.tiers.route(dueMillis: 0, nowMillis: Self.now).topic == "push.retry-1000")
    }

    @Test func extremeTimesSaturateInsteadOfTrapping() {
        let far = Self.tiers.route(dueMillis: .max, nowMillis: .min)
        #expect(far.topic == "push.retry-3600000")
        #expect(far.notBeforeMillis == .max)
        let late = Self.tiers.route(dueMillis: .min, nowMillis: .max)
        #expect(late == RetryTiers.Route(topic: "push.retry-1000", takeUpMillis: .max, notBeforeMillis: nil))
        let end = Self.tiers.route(dueMillis: .max, nowMillis: .max - 10)
        #expect(end == RetryTiers.Route(topic: "push.retry-1000", takeUpMillis: .max, notBeforeMillis: nil))
    }

    /// Within a tier every record waits the tier's delay: written later means due no sooner.
    @Test func withinATierTheOrderOfWritingIsTheOrderOfDueTimes() {
        var takeUps: [String: [Int64]] = [:]
        var now = Self.now
        for wait in [900, 5, 59_000, 2_000, 700_000, 61_000, 1, 3_000_000, 40_000] as [Int64] {
            now += 7
            let route = Self.tiers.route(dueMillis: now + wait, nowMillis: now)
            #expect(route.takeUpMillis >= now + wait)
            takeUps[route.topic, default: []].append(route.takeUpMillis)
        }
        #expect(takeUps.count == 5)
        for times in takeUps.values { #expect(times == times.sorted()) }
    }
}
