import TestSupport
import Testing

@testable import PushPipeline

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(base: .seconds(1), cap: .seconds(30), maxAttempts: 5)

    @Test func backoffStaysWithinTheDoublingCeilingAndTheCap() {
        var random = SeededGenerator(seed: 42)
        for attempt in 1...12 {
            let ceiling = min(30.0, Double(1 << (attempt - 1)))
            for _ in 0..<200 {
                let delay = policy.backoff(attempt: attempt, using: &random)
                #expect(delay >= .zero && delay <= .seconds(ceiling))
            }
        }
    }

    @Test func jitterSpreadsOverTheWholeRange() {
        var random = SeededGenerator(seed: 7)
        let delays = (0..<1000).map { _ in policy.backoff(attempt: 6, using: &random) }
        #expect(delays.contains { $0 < .seconds(3) })
        #expect(delays.contains { $0 > .seconds(27) })
    }

    @Test func seededRandomGivesReproducibleDelays() {
        var first = SeededGenerator(seed: 99)
        var second = SeededGenerator(seed: 99)
        let a = (1...4).map { policy.backoff(attempt: $0, using: &first) }
        let b = (1...4).map { policy.backoff(attempt: $0, using: &second) }
        #expect(a == b)
    }

    @Test func hugeAttemptNumbersDoNotOverflow() {
        var random = SeededGenerator(seed: 11)
        #expect(policy.backoff(attempt: 10_000, using: &random) <= .seconds(30))
    }

    @Test func retryDelaysNeverUndercutRetryAfter() {
        let delays = JitteredRetryDelays(policy: RetryPolicy(base: .milliseconds(100), cap: .seconds(1)))
        for attempts in 1...20 {
            #expect(delays.delay(afterAttempts: attempts, retryAfter: .seconds(2)) >= .seconds(2))
            #expect(delays.delay(afterAttempts: attempts, retryAfter: nil) <= .seconds(1))
        }
    }
}
