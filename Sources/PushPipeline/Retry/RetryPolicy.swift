/// When to send again after a transient failure: exponential backoff with full jitter and a bounded number of
/// attempts. Pure: randomness is injected.
public struct RetryPolicy: Sendable, Equatable {
    /// The backoff ceiling of the first retry; doubled for each further attempt.
    public var base: Duration
    /// The largest backoff ceiling.
    public var cap: Duration
    /// How many attempts in all (the first send included) before giving up.
    public var maxAttempts: Int

    /// A policy; the defaults suit push providers (0.5 s, doubling up to 5 minutes, 8 attempts).
    public init(base: Duration = .milliseconds(500), cap: Duration = .seconds(300), maxAttempts: Int = 8) {
        self.base = base
        self.cap = cap
        self.maxAttempts = maxAttempts
    }

    /// Full jitter: uniformly random in `0...min(cap, base · 2^(attempt-1))`.
    public func backoff(attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let ceiling = min(cap.nanoseconds, base.nanoseconds * Double(1 << min(max(attempt - 1, 0), 62)))
        guard ceiling >= 1 else { return .zero }
        return .nanoseconds(Int64.random(in: 0...Int64(ceiling), using: &random))
    }
}

extension Duration {
    /// The duration in nanoseconds, as a `Double` (exact to well below a microsecond for any backoff).
    fileprivate var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}
