import Essentials
import Testing

@testable import Adapters

@Suite struct FollowRetriesTests {
    /// A generator that always draws the largest value: every wait is its ceiling.
    struct Largest: RandomNumberGenerator {
        mutating func next() -> UInt64 { .max }
    }

    @Test func failuresInARowWaitLongerUpToTheCap() {
        var retries = FollowRetries(backoff: Backoff(base: .seconds(1), cap: .seconds(60)))
        var random = Largest()
        let waits = (0..<9).map { _ in retries.wait(afterConnectionThatCaughtUp: false, using: &random) }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        #expect(retries.failuresInARow == 9)
    }

    @Test func aConnectionThatCaughtUpStartsTheCountAgain() {
        var retries = FollowRetries(backoff: Backoff(base: .seconds(1), cap: .seconds(60)))
        var random = Largest()
        for _ in 0..<5 { _ = retries.wait(afterConnectionThatCaughtUp: false, using: &random) }
        #expect(retries.wait(afterConnectionThatCaughtUp: true, using: &random) == .seconds(1))
        #expect(retries.wait(afterConnectionThatCaughtUp: false, using: &random) == .seconds(2))
    }

    @Test func theDefaultWaitsGrowFromOneSecondToOneMinute() {
        #expect(TopicTableFollower.retryBackoff == Backoff(base: .seconds(1), cap: .seconds(60)))
    }
}
