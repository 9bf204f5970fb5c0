import TestSupport
import Testing

@testable import Providers

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(base: .seconds(1), cap: .seconds(30), maxAttempts: 5)

    @Test(arguments: [
        DeliveryOutcome.delivered(providerMessageId: "id"), .invalidToken(reason: "Unregistered", invalidSince: nil),
        .rejected(status: 400, reason: "BadTopic"),
    ])
    func finalOutcomesAreDone(outcome: DeliveryOutcome) {
        var random = SeededGenerator(seed: 1)
        #expect(policy.decide(after: outcome, attempt: 1, using: &random) == .done)
    }

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
        let outcome = DeliveryOutcome.retry(after: nil, status: 503, reason: "Shutdown")
        let a = (1...4).map { policy.decide(after: outcome, attempt: $0, using: &first) }
        let b = (1...4).map { policy.decide(after: outcome, attempt: $0, using: &second) }
        #expect(a == b)
    }

    @Test func retryAfterIsAFloor() {
        var random = SeededGenerator(seed: 3)
        let outcome = DeliveryOutcome.retry(after: .seconds(45), status: 429, reason: "TooManyRequests")
        for attempt in 1...4 {
            #expect(policy.decide(after: outcome, attempt: attempt, using: &random) == .retry(after: .seconds(45)))
        }
    }

    @Test func transientFailuresStopAfterMaxAttempts() {
        var random = SeededGenerator(seed: 5)
        let outcome = DeliveryOutcome.retry(after: nil, status: 500, reason: "InternalServerError")
        #expect(policy.decide(after: outcome, attempt: 4, using: &random) != .exhausted)
        #expect(policy.decide(after: outcome, attempt: 5, using: &random) == .exhausted)
        #expect(
            policy.decide(after: .credentials(status: 403, reason: "InvalidProviderToken"), attempt: 5, using: &random)
                == .exhausted)
    }

    @Test func hugeAttemptNumbersDoNotOverflow() {
        var random = SeededGenerator(seed: 11)
        #expect(policy.backoff(attempt: 10_000, using: &random) <= .seconds(30))
    }
}
