import Essentials
import PushPipeline
import Testing

@Suite struct RetryDelaysTests {
    @Test func retryDelaysNeverUndercutRetryAfter() {
        let delays: any RetryDelayPolicy = Backoff(base: .milliseconds(100), cap: .seconds(1))
        for attempts in 1...20 {
            #expect(delays.delay(afterAttempts: attempts, retryAfter: .seconds(2)) >= .seconds(2))
            #expect(delays.delay(afterAttempts: attempts, retryAfter: nil) <= .seconds(1))
        }
    }
}
