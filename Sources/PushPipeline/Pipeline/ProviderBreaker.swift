import Essentials
import PushCore
import Synchronization

/// The failure breaker of one provider: after `threshold` consecutive provider-wide failures
/// (5xx, 429, connection or credential errors) it opens; while open, one probe at a time is let
/// through every `probeInterval`; any success closes it. Pure: time is a parameter.
struct BreakerState: Sendable, Equatable {
    let threshold: Int
    let probeIntervalMillis: Int64
    private(set) var consecutiveFailures = 0
    private(set) var isOpen = false
    private var probeInFlight = false
    /// While open, when the next probe may go (epoch milliseconds).
    private(set) var nextProbeMillis: Int64 = 0

    init(threshold: Int, probeIntervalMillis: Int64) {
        self.threshold = max(1, threshold)
        self.probeIntervalMillis = probeIntervalMillis
    }

    /// Whether a send may go now; while open, admits one probe when it is due.
    mutating func admit(nowMillis: Int64) -> Bool {
        guard isOpen else { return true }
        guard !probeInFlight, nowMillis >= nextProbeMillis else { return false }
        probeInFlight = true
        return true
    }

    /// Records how a send ended; returns the new open state when it changed.
    mutating func record(providerFailure: Bool, nowMillis: Int64) -> Bool? {
        let wasOpen = isOpen
        if providerFailure {
            consecutiveFailures += 1
            if consecutiveFailures >= threshold { isOpen = true }
            if isOpen {
                probeInFlight = false
                nextProbeMillis = nowMillis + probeIntervalMillis
            }
        } else {
            consecutiveFailures = 0
            isOpen = false
            probeInFlight = false
        }
        return wasOpen == isOpen ? nil : isOpen
    }
}

/// The breakers of all providers, shared by every send: one per provider, and for a provider of many push services
/// (Web Push) one per origin instead (`OriginBreakers`).
final class ProviderBreakers: Sendable {
    private let states: Mutex<[PushProvider: BreakerState]>
    private let origins: Mutex<OriginBreakers>
    private let closed: BreakerState
    private let probeInterval: Duration

    /// `origins` bounds the origins tracked at once; one without an outcome for `originIdleTime` is forgotten.
    init(threshold: Int, probeInterval: Duration, origins: Int = 1_000, originIdleTime: Duration = .seconds(300)) {
        closed = BreakerState(threshold: threshold, probeIntervalMillis: probeInterval.wholeMilliseconds)
        states = Mutex([:])
        self.origins = Mutex(
            OriginBreakers(
                threshold: threshold, probeIntervalMillis: probeInterval.wholeMilliseconds, capacity: origins,
                idleMillis: originIdleTime.wholeMilliseconds))
        self.probeInterval = probeInterval
    }

    /// Whether any provider is failing as a whole (consumption is paused then); an origin's breaker does not count.
    var anyOpen: Bool { states.withLock { $0.values.contains { $0.isOpen } } }

    /// The providers whose breaker is open.
    var openProviders: [PushProvider] {
        states.withLock { states in PushProvider.allCases.filter { states[$0]?.isOpen == true } }
    }

    func isOpen(_ provider: PushProvider) -> Bool { states.withLock { $0[provider]?.isOpen == true } }

    /// How many origins' breakers are open.
    var openOrigins: Int { origins.withLock { $0.openCount } }

    /// Waits until a send to `provider` may go: at once while closed, as the next probe while open. Returns false,
    /// admitting nothing, once `givingUp` says so while the breaker holds the send back; it is asked at least every
    /// `givingUpCheck`, so that a shutdown need not wait for a probe's turn.
    func waitForAdmission(to provider: PushProvider, clock: any WallClock, unless givingUp: () -> Bool)
        async throws -> Bool
    {
        while !states.withLock({ [closed] in $0[provider, default: closed].admit(nowMillis: clock.nowMillis()) }) {
            if givingUp() { return false }
            try await clock.sleep(for: min(probeInterval, Self.givingUpCheck))
        }
        return true
    }

    /// How often a send held back by an open breaker asks whether to give up.
    static let givingUpCheck = Duration.milliseconds(100)

    /// Whether a send to `origin` may go now: `nil` if so, else when its breaker lets the next probe through (epoch
    /// milliseconds). An origin's sends do not wait for it: they go to the retry topic, and the others keep going.
    func admit(origin: String, nowMillis: Int64) -> Int64? {
        origins.withLock { $0.admit(origin, nowMillis: nowMillis) }
    }

    /// Records how a send ended; returns the new open state when it changed.
    func record(_ outcome: DeliveryOutcome, from provider: PushProvider, nowMillis: Int64) -> Bool? {
        states.withLock { [closed] in
            $0[provider, default: closed].record(providerFailure: outcome.isProviderFailure, nowMillis: nowMillis)
        }
    }

    /// Records how a send to `origin` ended; returns its breaker's new open state when it changed.
    func record(_ outcome: DeliveryOutcome, from origin: String, nowMillis: Int64) -> Bool? {
        origins.withLock {
            $0.record(providerFailure: outcome.isProviderFailure, origin: origin, nowMillis: nowMillis)
        }
    }
}
