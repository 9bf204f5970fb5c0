import Synchronization

/// The known dead tokens, shared between the follower that fills it from the invalid-token topic and the
/// planner that consults it for every send.
public final class InvalidTokenTable: Sendable {
    private let tokens = Mutex(KnownInvalidTokens())
    private let loaded = Mutex(false)

    public init() {}

    /// Applies one record of the invalid-token topic (an empty value is a tombstone).
    public func apply(key: String, value: [UInt8]) {
        tokens.withLock { _ = $0.apply(key: key, value: value) }
    }

    /// Whether `target`'s token is known dead on its platform.
    public func contains(_ target: DeviceTarget) -> Bool {
        tokens.withLock { $0.contains(platform: target.platform, tokenHash: target.tokenHash) }
    }

    public var count: Int { tokens.withLock { $0.count } }

    /// Whether no token is known dead.
    public var isEmpty: Bool { count == 0 }

    /// The bytes the table's storage takes (`KnownInvalidTokens.storageBytes`).
    public var storageBytes: Int { tokens.withLock { $0.storageBytes } }

    /// Whether the topic has been read up to where it ended when the worker started.
    public var isLoaded: Bool {
        get { loaded.withLock { $0 } }
        set { loaded.withLock { $0 = newValue } }
    }
}
