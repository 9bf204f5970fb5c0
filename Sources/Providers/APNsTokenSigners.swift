import Essentials
import Synchronization

/// One provider-token signer per APNs signing key, shared by every client of that key: APNs refuses a key's token
/// refreshed more often than every 20 minutes (`TooManyProviderTokenUpdates`), so two clients of one key (the default
/// app and an app folder holding the same key, or an app's clients made again after its folder changed) must not
/// each sign their own. Keyed by the team id, the key id and the key itself; one entry per key ever used.
public final class APNsTokenSigners: Sendable {
    private let signers = Mutex<[String: APNsProviderTokens]>([:])

    public init() {}

    /// The signer of `key`, made on first use with `clock`.
    func tokens(for key: APNsSigningKey, clock: any WallClock) -> APNsProviderTokens {
        signers.withLock { signers in
            if let tokens = signers[key.identity] { return tokens }
            let tokens = APNsProviderTokens(key: key, clock: clock)
            signers[key.identity] = tokens
            return tokens
        }
    }
}
