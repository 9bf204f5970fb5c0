import Essentials
import PushCore
public import PushPipeline

/// Retry delays without jitter: `base × attempts`, at least Retry-After.
public struct LinearDelays: RetryDelayPolicy {
    public var base: Duration = .seconds(1)

    public init(base: Duration = .seconds(1)) {
        self.base = base
    }

    public func delay(afterAttempts attempts: Int, retryAfter: Duration?) -> Duration {
        max(retryAfter ?? .zero, base * attempts)
    }
}
