import Foundation
import Testing

@testable import Providers

@Suite struct ProviderTokenScheduleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func needsATokenFirstAndAgainAfterFiftyMinutes() {
        var schedule = ProviderTokenSchedule()
        #expect(schedule.needsRenewal(now: start))
        schedule.issued(at: start)
        #expect(!schedule.needsRenewal(now: start.addingTimeInterval(49 * 60 + 59)))
        #expect(schedule.needsRenewal(now: start.addingTimeInterval(50 * 60)))
    }

    @Test func aClockSteppedFarBackRenewsTheToken() {
        var schedule = ProviderTokenSchedule()
        schedule.issued(at: start)
        #expect(!schedule.needsRenewal(now: start.addingTimeInterval(-60)))
        #expect(schedule.needsRenewal(now: start.addingTimeInterval(-51 * 60)))
    }

    @Test func forcedRenewalIsAllowedOncePerTwentyMinutesAndOnlyForTheCurrentToken() {
        var schedule = ProviderTokenSchedule()
        schedule.issued(at: start)
        let first = schedule.allowsForcedRenewal(rejected: 1, now: start)
        schedule.issued(at: start)
        let stale = schedule.allowsForcedRenewal(rejected: 1, now: start)
        let tooSoon = schedule.allowsForcedRenewal(rejected: 2, now: start.addingTimeInterval(19 * 60))
        let later = schedule.allowsForcedRenewal(rejected: 2, now: start.addingTimeInterval(20 * 60))
        #expect([first, stale, tooSoon, later] == [true, false, false, true])
    }
}
