/// Lets one log line per key through per interval and counts the rest, so that a storm of one failure becomes one
/// line per interval that says how many like it were left out. Pure: the caller passes the time.
///
/// The first event of a key is logged at once and opens its interval; events of that key within the interval are
/// suppressed and counted; the first one after it is logged with that count and opens the next interval. At most
/// `maxKeys` keys are tracked: past them, keys whose interval is over are forgotten, and if none is, the new key's
/// events share one overflow key.
public struct LogRateLimiter: Sendable {
    /// What to do with one event.
    public enum Decision: Sendable, Equatable {
        /// Write the line, saying how many events of its key were suppressed since the last line.
        case log(suppressed: Int)
        /// Count it, write nothing.
        case suppress
    }

    /// The key events of untracked keys share when `maxKeys` are tracked.
    public static let overflowKey = "other"

    public let intervalMillis: Int64
    public let maxKeys: Int
    private var windows: [String: Window] = [:]

    private struct Window {
        var startMillis: Int64
        var suppressed: Int
    }

    public init(intervalMillis: Int64, maxKeys: Int = 256) {
        self.intervalMillis = max(0, intervalMillis)
        self.maxKeys = max(1, maxKeys)
    }

    /// Whether an event of `key` at `nowMillis` is logged, and with how many suppressed before it.
    public mutating func admit(_ key: String, nowMillis: Int64) -> Decision {
        var key = key
        if windows[key] == nil, windows.count >= maxKeys {
            windows = windows.filter { Self.elapsed(from: $0.value.startMillis, to: nowMillis) < intervalMillis }
            if windows.count >= maxKeys { key = Self.overflowKey }
        }
        guard var window = windows[key] else {
            windows[key] = Window(startMillis: nowMillis, suppressed: 0)
            return .log(suppressed: 0)
        }
        if Self.elapsed(from: window.startMillis, to: nowMillis) < intervalMillis {
            window.suppressed += 1
            windows[key] = window
            return .suppress
        }
        windows[key] = Window(startMillis: nowMillis, suppressed: 0)
        return .log(suppressed: window.suppressed)
    }

    /// Milliseconds from `start` to `now`, saturating instead of trapping for any two times.
    private static func elapsed(from start: Int64, to now: Int64) -> Int64 {
        let (difference, overflow) = now.subtractingReportingOverflow(start)
        return overflow ? (now < start ? .min : .max) : difference
    }
}
