import Essentials
import Foundation
import Signing
import Synchronization

/// The provider token of one signing key, shared by every connection and request: issued lazily, renewed after
/// 50 minutes, and renewed once at once when APNs says it expired (see `ProviderTokenSchedule`).
final class APNsProviderTokens: Sendable {
    /// A token and the generation it belongs to.
    struct Token: Sendable {
        let value: String
        var generation: Int
        /// The `authorization` header's value, `bearer <token>`: made once a token, not once a request.
        let authorization: String

        init(value: String, generation: Int) {
            self.value = value
            self.generation = generation
            authorization = "bearer " + value
        }
    }

    private struct State {
        var schedule = ProviderTokenSchedule()
        var current: Token?
    }

    private let key: APNsSigningKey
    private let clock: any WallClock
    private let state = Mutex(State())

    init(key: APNsSigningKey, clock: any WallClock) {
        self.key = key
        self.clock = clock
    }

    /// How many tokens were issued so far.
    var generation: Int { state.withLock { $0.schedule.generation } }

    /// The token to send now, signing a new one when the schedule says so. Signing takes microseconds, so it
    /// happens under the lock and concurrent callers never sign twice.
    func current() throws(SigningError) -> Token {
        let now = clock.now()
        return try state.withLock { state throws(SigningError) -> Token in
            if let token = state.current, !state.schedule.needsRenewal(now: now) { return token }
            return try Self.issue(&state, key: key, now: now)
        }
    }

    /// After APNs rejected the token of `generation` as expired: whether retrying with `current()` is worth it
    /// (a newer token exists, or one was issued now).
    func renew(afterExpiryOf generation: Int) throws(SigningError) -> Bool {
        let now = clock.now()
        return try state.withLock { state throws(SigningError) -> Bool in
            if generation < state.schedule.generation { return true }
            guard state.schedule.allowsForcedRenewal(rejected: generation, now: now) else { return false }
            _ = try Self.issue(&state, key: key, now: now)
            return true
        }
    }

    private static func issue(_ state: inout State, key: APNsSigningKey, now: Date) throws(SigningError) -> Token {
        let value = try JSONWebToken.apnsProviderToken(
            key: key.key, keyId: key.keyId, teamId: key.teamId, issuedAt: Int(now.timeIntervalSince1970))
        state.schedule.issued(at: now)
        let token = Token(value: value, generation: state.schedule.generation)
        state.current = token
        return token
    }
}
