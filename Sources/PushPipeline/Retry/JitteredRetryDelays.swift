/// The retry-delay port over the providers' policy: full-jitter backoff, never below Retry-After.
public struct JitteredRetryDelays: RetryDelayPolicy {
    private let policy: RetryPolicy

    public init(policy: RetryPolicy) {
        self.policy = policy
    }

    /// Backoff without attempt limit: full jitter, doubling from `base` up to `cap`.
    public init(base: Duration, cap: Duration) {
        self.init(policy: RetryPolicy(base: base, cap: cap, maxAttempts: .max))
    }

    public func delay(afterAttempts attempts: Int, retryAfter: Duration?) -> Duration {
        var random = SystemRandomNumberGenerator()
        return max(retryAfter ?? .zero, policy.backoff(attempt: attempts, using: &random))
    }
}
