public import Essentials
public import Foundation
import Synchronization

/// A wall clock that moves only when told; a sleep moves it by the time slept, at once.
public final class ManualClock: WallClock {
    private let micros: Mutex<Int64>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        micros = Mutex(Int64(clampingRoundedDown: start.timeIntervalSince1970 * 1e6))
    }

    public func nowMicros() -> Int64 { micros.withLock { $0 } }

    public func sleep(for duration: Duration) async throws {
        advance(by: duration)
    }

    public func advance(by duration: Duration) {
        micros.withLock { $0 = $0.addingClamped(duration.wholeMilliseconds.multipliedClamped(by: 1000)) }
    }
}
