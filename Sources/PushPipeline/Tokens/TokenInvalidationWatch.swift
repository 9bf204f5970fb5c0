import Synchronization

/// The one `TokenInvalidationGuard` of a pipeline, shared by the tasks that settle records (which count every
/// provider answer), the planner (which skips known dead tokens only while their scope is trusted) and the metrics.
public final class TokenInvalidationWatch: Sendable {
    private let state: Mutex<TokenInvalidationGuard>

    public init(_ guardrail: TokenInvalidationGuard) {
        state = Mutex(guardrail)
    }

    /// Counts one answer of `scope`'s provider at `nowMillis` and returns whether `scope`'s "invalid token" answers
    /// are suspect now, this one included: the answer that trips the guard is the first one not acted on.
    public func answer(_ scope: TokenInvalidationGuard.Scope, invalid: Bool, nowMillis: Int64) -> Bool {
        state.withLock { $0.record(scope, invalid: invalid, nowMillis: nowMillis) }
    }

    /// Whether `scope`'s "invalid token" answers are suspect at `nowMillis`.
    public func isSuspended(_ scope: TokenInvalidationGuard.Scope, nowMillis: Int64) -> Bool {
        state.withLock { $0.isSuspended(scope, nowMillis: nowMillis) }
    }

    /// Every scope suspended at `nowMillis`; scopes that left the window are forgotten on the way.
    public func suspendedScopes(nowMillis: Int64) -> Set<TokenInvalidationGuard.Scope> {
        state.withLock { guardrail in
            guardrail.prune(nowMillis: nowMillis)
            return guardrail.suspendedScopes(nowMillis: nowMillis)
        }
    }
}
