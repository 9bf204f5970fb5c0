/// When the libcurl transport may start an origin's requests again after its server refused them (or lost them
/// with their connection before any response byte): a server that refuses every stream
/// (`SETTINGS_MAX_CONCURRENT_STREAMS=0`, a proxy out of room) would otherwise get a new connection, and the
/// transport a TLS handshake, for every resend at once.
///
/// The first refusal in a row is resent at once (a stale pooled connection is the common case); from the second
/// on, the origin's waiting requests start only after `first`, doubling per refusal up to `cap`. Any response from
/// the origin ends the backoff. The requests' deadlines still bound every wait.
struct RefusalBackoff: Equatable {
    /// The wait after the second refusal in a row.
    static let first: Duration = .milliseconds(250)
    /// The longest wait.
    static let cap: Duration = .seconds(2)

    /// Refusals since the origin last answered.
    private(set) var refusalsInARow = 0
    /// The time before which no request of the origin starts; nil when there is no wait.
    private(set) var notBefore: ContinuousClock.Instant?

    /// Notes a refusal at `now`.
    mutating func refused(at now: ContinuousClock.Instant) {
        refusalsInARow += 1
        guard refusalsInARow >= 2 else { return }
        let doublings = min(refusalsInARow - 2, 16)
        notBefore = now + min(Self.cap, Self.first * (1 << doublings))
    }

    /// Notes a response from the origin: the server takes streams again.
    mutating func answered() {
        refusalsInARow = 0
        notBefore = nil
    }

    /// Whether the origin's requests may start at `now`.
    func allowsStart(at now: ContinuousClock.Instant) -> Bool {
        notBefore.map { now >= $0 } ?? true
    }
}
