import Foundation

/// The current wall-clock time; injected so token lifetimes and Retry-After dates can be tested.
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's real-time clock.
public struct SystemWallClock: WallClock {
    public init() {}

    public func now() -> Date { Date() }
}
