import Essentials
import Foundation

/// When an APNs provider token is renewed. Pure state: APNs rejects tokens older than an hour and answers
/// `TooManyProviderTokenUpdates` when they change too often, so a token is renewed after 50 minutes, and a
/// token that APNs calls expired is renewed at once, but such a forced renewal at most once per 20 minutes.
struct ProviderTokenSchedule: Sendable, Equatable {
    static let renewalAge: Duration = .seconds(50 * 60)
    static let minimumForcedInterval: Duration = .seconds(20 * 60)

    /// When the current token was issued; `nil` before the first.
    private(set) var issuedAt: Date?
    /// Counts tokens issued, so a rejection of an older token does not renew a newer one.
    private(set) var generation = 0
    private var lastForcedRenewal: Date?

    /// Whether the current token must be replaced before use.
    func needsRenewal(now: Date) -> Bool {
        guard let issuedAt else { return true }
        let age = now.timeIntervalSince(issuedAt)
        // A clock stepped back by more than the renewal age means our token's `iat` is in the future.
        return age >= Self.renewalAge.fractionalSeconds || age < -Self.renewalAge.fractionalSeconds
    }

    /// Records a new token issued at `now`.
    mutating func issued(at now: Date) {
        issuedAt = now
        generation += 1
    }

    /// Whether a token of `generation` that APNs rejected as expired may be renewed now. True at most once per
    /// 20 minutes; if that token was already replaced, the caller just retries with the current one.
    mutating func allowsForcedRenewal(rejected rejectedGeneration: Int, now: Date) -> Bool {
        guard rejectedGeneration == generation else { return false }
        if let lastForcedRenewal,
            now.timeIntervalSince(lastForcedRenewal) < Self.minimumForcedInterval.fractionalSeconds
        {
            return false
        }
        lastForcedRenewal = now
        return true
    }
}
