import Essentials

/// How long a table's follower waits before it connects again: `backoff`'s wait for the failed connections in a row,
/// counted again from the first after a connection that caught up with its topic (it served, then failed).
struct FollowRetries {
    let backoff: Backoff
    /// The connections that failed since the last one that caught up.
    private(set) var failuresInARow = 0

    init(backoff: Backoff) {
        self.backoff = backoff
    }

    /// The wait after a connection ended, `caughtUp` telling whether it had read its topic up to its end.
    mutating func wait(afterConnectionThatCaughtUp caughtUp: Bool, using random: inout some RandomNumberGenerator)
        -> Duration
    {
        failuresInARow = caughtUp ? 1 : failuresInARow + 1
        return backoff.delay(afterAttempts: failuresInARow, using: &random)
    }
}
