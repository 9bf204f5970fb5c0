import Essentials
import TestSupport
import Testing

@Suite struct BackoffTests {
    let delivery = Backoff(base: .milliseconds(500), cap: .seconds(300))
    let produce = Backoff(base: .milliseconds(100), cap: .seconds(10))

    /// The growth table of `Backoff`'s doc comment, row by row.
    @Test(arguments: [
        (1, Duration.milliseconds(500), Duration.milliseconds(100)), (2, .seconds(1), .milliseconds(200)),
        (3, .seconds(2), .milliseconds(400)), (4, .seconds(4), .milliseconds(800)),
        (5, .seconds(8), .milliseconds(1600)),
        (6, .seconds(16), .milliseconds(3200)), (7, .seconds(32), .milliseconds(6400)), (8, .seconds(64), .seconds(10)),
        (9, .seconds(128), .seconds(10)), (10, .seconds(256), .seconds(10)), (11, .seconds(300), .seconds(10)),
        (12, .seconds(300), .seconds(10)), (1000, .seconds(300), .seconds(10)),
    ])
    func theCeilingDoublesUpToTheCapAsTheTableSays(attempts: Int, deliveryCeiling: Duration, produceCeiling: Duration) {
        #expect(delivery.ceiling(afterAttempts: attempts) == deliveryCeiling)
        #expect(produce.ceiling(afterAttempts: attempts) == produceCeiling)
    }

    @Test func delaysStayWithinTheCeiling() {
        var random = SeededGenerator(seed: 42)
        for attempts in 1...14 {
            for _ in 0..<200 {
                let delay = delivery.delay(afterAttempts: attempts, using: &random)
                #expect(delay >= .zero && delay <= delivery.ceiling(afterAttempts: attempts))
            }
        }
    }

    @Test func jitterSpreadsOverTheWholeRange() {
        var random = SeededGenerator(seed: 7)
        let delays = (0..<1000).map { _ in delivery.delay(afterAttempts: 7, using: &random) }
        #expect(delays.contains { $0 < .seconds(3) })
        #expect(delays.contains { $0 > .seconds(29) })
    }

    @Test func seededRandomGivesReproducibleDelays() {
        var first = SeededGenerator(seed: 99)
        var second = SeededGenerator(seed: 99)
        let a = (1...6).map { delivery.delay(afterAttempts: $0, using: &first) }
        let b = (1...6).map { delivery.delay(afterAttempts: $0, using: &second) }
        #expect(a == b)
    }

    @Test(arguments: [Int.min, -1, 0, 10_000, Int.max])
    func anyAttemptNumberIsSafe(attempts: Int) {
        var random = SeededGenerator(seed: 11)
        let ceiling = attempts < 1 ? Duration.milliseconds(500) : .seconds(300)
        #expect(delivery.ceiling(afterAttempts: attempts) == ceiling)
        #expect(delivery.delay(afterAttempts: attempts, using: &random) <= ceiling)
    }

    @Test func hugeAndZeroDurationsNeitherTrapNorGoNegative() {
        var random = SeededGenerator(seed: 5)
        let huge = Backoff(base: .seconds(Int64.max), cap: .seconds(Int64.max))
        #expect(huge.ceiling(afterAttempts: 63) == .nanoseconds(Int64.max))
        #expect(huge.delay(afterAttempts: 63, using: &random) >= .zero)
        let zero = Backoff(base: .zero, cap: .seconds(1))
        #expect(zero.delay(afterAttempts: 5, using: &random) == .zero)
        let negative = Backoff(base: .seconds(-1), cap: .seconds(-1))
        #expect(negative.ceiling(afterAttempts: 3) == .zero)
    }
}
