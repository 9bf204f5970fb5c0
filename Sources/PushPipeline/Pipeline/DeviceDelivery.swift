import Essentials
import PushCore

/// One send: where it went and how it went.
struct Attempt: Sendable {
    var provider: PushProvider
    var outcome: DeliveryOutcome
    var sentAtMicros: Int64
    var latencyMillis: Double
}

/// What became of one device of a record.
enum DeviceResult: Sendable, Equatable {
    /// A terminal outcome with a receipt.
    case finished(FinishedDevice)
    /// Handed to the retry topic, due at `dueMillis`.
    case retryLater(DeliveryFailure, dueMillis: Int64)
    /// Given up: a dead-letter record and a `dead_lettered` receipt.
    case deadLettered(DeliveryFailure)
}

extension Attempt: Equatable {}

/// A device's terminal outcome: what its receipt says.
struct FinishedDevice: Sendable, Equatable {
    var status: ReceiptStatus
    /// Why, in the provider's or the plan's words (`BadDeviceToken`, `time_to_live_exceeded`); `nil` when delivered.
    var reason: String?
    /// The send that finished it; `nil` when the plan did without a send (skipped, expired, rejected).
    var attempt: Attempt?
    /// Sends made for the device, those of earlier retry records included.
    var attempts: Int
    /// Since when the provider says the token is invalid (APNs' `timestamp`), for the invalid-token record.
    var tokenInvalidSinceMillis: Int64?

    init(
        _ status: ReceiptStatus, reason: String? = nil, attempt: Attempt? = nil, attempts: Int = 0,
        tokenInvalidSinceMillis: Int64? = nil
    ) {
        self.status = status
        self.reason = reason
        self.attempt = attempt
        self.attempts = attempts
        self.tokenInvalidSinceMillis = tokenInvalidSinceMillis
    }
}

/// Sends one device's request: limits, breaker, in-process retries within the budget, then the
/// hand-off to the retry topic or the dead-letter topic.
///
/// A class: every record's tasks share it, and a reference is one retain where a copy of these fields was one each.
final class DeviceDelivery<Request: Sendable>: Sendable {
    let sender: any PushSender<Request>
    let retryPolicy: any RetryDelayPolicy
    let clock: any WallClock
    let breakers: ProviderBreakers
    let globalLimit: AsyncLimiter
    let providerLimits: [PushProvider: AsyncLimiter]
    let originLimits: OriginLimits
    let settings: PipelineSettings
    let observer: any PipelineObserver
    /// True once shutdown began: failures go to the retry topic at once instead of waiting.
    let isStopping: @Sendable () -> Bool

    init(
        sender: any PushSender<Request>, retryPolicy: any RetryDelayPolicy, clock: any WallClock,
        breakers: ProviderBreakers, globalLimit: AsyncLimiter, providerLimits: [PushProvider: AsyncLimiter],
        originLimits: OriginLimits, settings: PipelineSettings, observer: any PipelineObserver,
        isStopping: @escaping @Sendable () -> Bool
    ) {
        self.sender = sender
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.breakers = breakers
        self.globalLimit = globalLimit
        self.providerLimits = providerLimits
        self.originLimits = originLimits
        self.settings = settings
        self.observer = observer
        self.isStopping = isStopping
    }

    /// Sends once, within the limits and when the breaker admits it: the provider's, or for a request to one of the
    /// provider's many push services (`PushSender.origin`) that origin's. With `context`, a failed send is also
    /// observed as `sendFailed`, naming the message, room and device.
    ///
    /// Once shutdown began, a send the open breaker holds back is not made: it comes back as a `heldBack` retry
    /// outcome, which `settle` hands to the retry topic, so that the record is done (and its offset committed)
    /// within the grace period instead of being abandoned and sent again by the partition's next owner. A send an
    /// origin's open breaker holds back is not made either, shutdown or not: it comes back at once as an
    /// `originHeldBack` retry outcome, and the sends to other origins go on.
    ///
    /// The limits are taken origin first (`acquirePermits`).
    func attempt(_ request: Request, to provider: PushProvider, context: SendContext? = nil) async throws -> Attempt {
        try Task.checkCancellation()
        let origin = sender.origin(of: request, to: provider)
        if let origin {
            let now = clock.nowMillis()
            if let probeMillis = breakers.admit(origin: origin, nowMillis: now) {
                let outcome = Self.originHeldBack(until: probeMillis, nowMillis: now)
                return Attempt(provider: provider, outcome: outcome, sentAtMicros: clock.nowMicros(), latencyMillis: 0)
            }
        } else if !(try await breakers.waitForAdmission(to: provider, clock: clock, unless: isStopping)) {
            return Attempt(
                provider: provider, outcome: Self.heldBack, sentAtMicros: clock.nowMicros(), latencyMillis: 0)
        }
        try await acquirePermits(to: provider, origin: origin)
        observer.observe(.sendStarted(provider))
        let start = clock.nowMicros()
        let outcome = await sender.send(request, to: provider)
        return finished(outcome, to: provider, origin: origin, startMicros: start, context: context)
    }

    /// Takes the permits of `count` sends (at most one with an origin), origin first, so that sends waiting for a slow
    /// origin hold none of the provider's or the global in-flight sends; each send gives its own back (`finished`).
    /// Throws `CancellationError` when the task is cancelled while it waits (the pipeline never closes its limiters).
    func acquirePermits(to provider: PushProvider, origin: String?, count: Int = 1) async throws {
        let providerLimit = providerLimits[provider]
        do throws(AsyncLimiter.Refusal) {
            if let origin { try await originLimits.acquire(origin) }
            do throws(AsyncLimiter.Refusal) {
                try await providerLimit?.acquire(count)
                do throws(AsyncLimiter.Refusal) {
                    try await globalLimit.acquire(count)
                } catch {
                    providerLimit?.release(count)
                    throw error
                }
            } catch {
                if let origin { originLimits.release(origin) }
                throw error
            }
        } catch {
            throw CancellationError()
        }
    }

    /// What follows a send that began at `startMicros` and ended now: its permits given back, its breaker (the
    /// origin's or the provider's) told, its outcome observed; returns the attempt.
    func finished(
        _ outcome: DeliveryOutcome, to provider: PushProvider, origin: String?, startMicros start: Int64,
        context: SendContext?
    ) -> Attempt {
        let end = clock.nowMicros()
        globalLimit.release()
        providerLimits[provider]?.release()
        if let origin {
            originLimits.release(origin)
            if let open = breakers.record(outcome, from: origin, nowMillis: end / 1000) {
                observer.observe(
                    open
                        ? .originBreakerOpened(provider, origin: origin)
                        : .originBreakerClosed(provider, origin: origin))
            }
        } else if let open = breakers.record(outcome, from: provider, nowMillis: end / 1000) {
            observer.observe(open ? .breakerOpened(provider) : .breakerClosed(provider))
        }
        let attempt = Attempt(
            provider: provider, outcome: outcome, sentAtMicros: start, latencyMillis: Double(end - start) / 1000)
        observer.observe(.sent(provider, outcome, latencyMillis: attempt.latencyMillis))
        if let context, !Self.delivered(outcome) { observer.observe(.sendFailed(outcome, context)) }
        return attempt
    }

    /// The outcome of a send not made because its origin's breaker is open: to be tried again once the breaker lets
    /// its next probe through (at `probeMillis`).
    static func originHeldBack(until probeMillis: Int64, nowMillis: Int64) -> DeliveryOutcome {
        .retry(status: nil, reason: "push service breaker open", after: .milliseconds(max(0, probeMillis - nowMillis)))
    }

    /// The outcome of a send not made because the provider's breaker was open when shutdown began.
    static var heldBack: DeliveryOutcome {
        .retry(status: nil, reason: "provider breaker open at shutdown", after: nil)
    }

    /// Whether `outcome` is a delivery.
    static func delivered(_ outcome: DeliveryOutcome) -> Bool {
        if case .delivered = outcome { return true }
        return false
    }

    /// What an attempt means for its device: a final result, or a reason to send again.
    enum Verdict {
        /// Delivered, invalid token, rejected or too large: a receipt (and a dead letter), no further attempt.
        case final(DeviceResult)
        /// A failure worth another attempt: its reason, HTTP status and `Retry-After`.
        case again(reason: String, status: Int?, retryAfter: Duration?)
    }

    /// The verdict on `attempt`, the device's `attempts`-th send. Pure and synchronous, so that a device whose
    /// first attempt settled it needs no task of its own (`RecordProcessor.settle`).
    static func verdict(on attempt: Attempt, attempts: Int) -> Verdict {
        switch attempt.outcome {
        case .delivered:
            .final(.finished(FinishedDevice(.delivered, attempt: attempt, attempts: attempts)))
        case .invalidToken(_, let why, let timestamp):
            .final(
                .finished(
                    FinishedDevice(
                        .invalidToken, reason: why, attempt: attempt, attempts: attempts,
                        tokenInvalidSinceMillis: timestamp)))
        case .rejected(_, let why):
            .final(.finished(FinishedDevice(.rejected, reason: why, attempt: attempt, attempts: attempts)))
        case .tooLarge(let code, let why):
            .final(
                .deadLettered(
                    DeliveryFailure(reason: .payloadTooLarge, message: why, status: code, attempts: attempts)))
        case .retry(let code, let why, let after):
            .again(reason: why, status: code, retryAfter: after)
        case .credentials(let code, let why):
            .again(reason: why, status: code, retryAfter: nil)
        }
    }

    /// Carries a device from its first attempt to a result: retries in process while the budget
    /// lasts, then hands off to the retry topic; dead-letters after `maxAttempts` sends.
    /// `priorAttempts` and `firstFailureMillis` come from the retry record's headers.
    func settle(
        _ request: Request, to provider: PushProvider, first: Attempt, priorAttempts: Int, firstFailureMillis: Int64?,
        context: SendContext? = nil
    ) async throws -> DeviceResult {
        var current = first
        var attempts = priorAttempts + 1
        var firstFailure = firstFailureMillis
        var spent = Duration.zero
        while true {
            let reason: String
            let status: Int?
            let retryAfter: Duration?
            switch Self.verdict(on: current, attempts: attempts) {
            case .final(let result):
                return result
            case .again(let why, let code, let after):
                (reason, status, retryAfter) = (why, code, after)
            }
            let now = clock.nowMillis()
            firstFailure = firstFailure ?? now
            var failure = DeliveryFailure(
                reason: .transientFailure, message: reason, status: status, attempts: attempts,
                firstFailureMillis: firstFailure)
            let providerDown = breakers.isOpen(provider)
            if attempts >= settings.maxAttempts, !providerDown {
                failure.reason = .retriesExhausted
                return .deadLettered(failure)
            }
            let delay = min(retryPolicy.delay(afterAttempts: attempts, retryAfter: retryAfter), settings.maxRetryDelay)
            if isStopping() || (!providerDown && spent + delay > settings.retryBudget) {
                return .retryLater(failure, dueMillis: now.addingClamped(delay.wholeMilliseconds))
            }
            if !providerDown {
                spent += delay
                try await clock.sleep(for: delay)
            }
            current = try await attempt(request, to: provider, context: context)
            attempts += 1
        }
    }
}
