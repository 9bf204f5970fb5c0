public import Essentials
public import PushCore

/// Sends one provider request.
public protocol PushSender<Request>: Sendable {
    associatedtype Request: Sendable
    /// Sends `request` to `provider` once and classifies the answer; never throws.
    func send(_ request: Request, to provider: PushProvider) async -> DeliveryOutcome
    /// The push service `request` goes to when `provider` has many (Web Push: the endpoint's origin), each with its
    /// own breaker and in-flight limit; `nil` for a provider that is one service.
    func origin(of request: Request, to provider: PushProvider) -> String?
    /// Sends every request once, all at the same time, and classifies each answer: `answer` is called with the
    /// request's index in `sends` and its outcome as each one arrives, from any thread, once per request; returns when
    /// every request was answered. A sender that can hand many requests to its transport together (one wake-up of
    /// its loop) implements it; the default makes one concurrent `send` each.
    func sendAll(_ sends: [PushSend<Request>], answer: @escaping @Sendable (Int, DeliveryOutcome) -> Void) async
}

/// One request of `PushSender.sendAll` and the provider it goes to.
public struct PushSend<Request: Sendable>: Sendable {
    public var request: Request
    public var provider: PushProvider

    public init(_ request: Request, to provider: PushProvider) {
        self.request = request
        self.provider = provider
    }
}

extension PushSender {
    /// No origin: every provider is one service.
    public func origin(of request: Request, to provider: PushProvider) -> String? { nil }

    /// One concurrent `send` per request (a single one in the calling task).
    public func sendAll(
        _ sends: [PushSend<Request>], answer: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        await concurrently(sends.count) { index in
            answer(index, await send(sends[index].request, to: sends[index].provider))
        }
    }
}

/// The delay before the next attempt: backoff with jitter, never shorter than Retry-After.
public protocol RetryDelayPolicy: Sendable {
    /// The delay after `attempts` failed attempts (1 after the first), given the provider's Retry-After.
    func delay(afterAttempts attempts: Int, retryAfter: Duration?) -> Duration
}

/// The policy the worker uses: full-jitter backoff (its growth table is in `Backoff`'s doc comment) from the
/// system's random generator, never shorter than the provider's Retry-After.
extension Backoff: RetryDelayPolicy {
    public func delay(afterAttempts attempts: Int, retryAfter: Duration?) -> Duration {
        var random = SystemRandomNumberGenerator()
        return max(retryAfter ?? .zero, delay(afterAttempts: attempts, using: &random))
    }
}
