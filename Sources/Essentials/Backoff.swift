/// Exponential backoff with full jitter: the wait after the `n`-th failed attempt is uniformly random in
/// `0 … min(cap, base · 2^(n−1))`. Pure: randomness is injected, so tests use a seeded generator.
///
/// The ceiling doubles from `base` until it reaches `cap`. With the worker's delivery defaults
/// (`PUSH_RETRY_BASE_MS` 500, `PUSH_RETRY_CAP_MS` 300000) and its produce defaults (100 ms up to 10 s):
///
/// | failed attempts | delivery wait | produce wait |
/// |---|---|---|
/// | 1 | 0 … 0.5 s | 0 … 0.1 s |
/// | 2 | 0 … 1 s | 0 … 0.2 s |
/// | 3 | 0 … 2 s | 0 … 0.4 s |
/// | 4 | 0 … 4 s | 0 … 0.8 s |
/// | 5 | 0 … 8 s | 0 … 1.6 s |
/// | 6 | 0 … 16 s | 0 … 3.2 s |
/// | 7 | 0 … 32 s | 0 … 6.4 s |
/// | 8 | 0 … 64 s | 0 … 10 s |
/// | 9 | 0 … 128 s | 0 … 10 s |
/// | 10 | 0 … 256 s | 0 … 10 s |
/// | 11 and more | 0 … 300 s | 0 … 10 s |
///
/// Full jitter spreads the retries of many clients that failed together over the whole window instead of
/// sending them again in waves. Attempt numbers below 1 count as 1; any attempt number or cap is safe (no
/// overflow, no trap).
public struct Backoff: Sendable, Equatable {
    /// The ceiling after the first failed attempt; doubled for each further one.
    public var base: Duration
    /// The largest ceiling.
    public var cap: Duration

    /// A backoff whose ceiling starts at `base` and doubles up to `cap`.
    public init(base: Duration, cap: Duration) {
        self.base = base
        self.cap = cap
    }

    /// The longest wait after `attempts` failed attempts: `min(cap, base · 2^(attempts−1))`.
    public func ceiling(afterAttempts attempts: Int) -> Duration {
        .nanoseconds(ceilingNanoseconds(afterAttempts: attempts))
    }

    /// The wait after `attempts` failed attempts (1 after the first): uniformly random in `0 … ceiling`.
    public func delay(afterAttempts attempts: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let ceiling = ceilingNanoseconds(afterAttempts: attempts)
        guard ceiling >= 1 else { return .zero }
        return .nanoseconds(Int64.random(in: 0...ceiling, using: &random))
    }

    private func ceilingNanoseconds(afterAttempts attempts: Int) -> Int64 {
        let doublings = min(max(attempts, 1), 63) - 1
        let ceiling = min(cap.fractionalSeconds, base.fractionalSeconds * Double(1 << doublings)) * 1e9
        return max(Int64(clampingRoundedDown: ceiling), 0)
    }
}
