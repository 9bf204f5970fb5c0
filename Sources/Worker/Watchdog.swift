public import Essentials
import PushPipeline

/// Keeps the consumer honest about `max.poll.interval.ms`: librdkafka 2.0.2 resets its own timer on
/// any queue poll, so a pipeline stuck outside `poll` would keep its partitions forever. The watchdog
/// notices when the last completed poll is older than the limit.
public struct Watchdog: Sendable {
    public let limit: Duration
    public let clock: any WallClock

    public init(limit: Duration, clock: any WallClock) {
        self.limit = limit
        self.clock = clock
    }

    /// Whether polling stalled: the last poll ended longer than `limit` before `nowMicros`. Pure.
    public static func isStalled(lastPollMicros: Int64, nowMicros: Int64, limit: Duration) -> Bool {
        nowMicros - lastPollMicros > limit.wholeMilliseconds * 1000
    }

    /// Checks ten times per `limit` (at least every second); returns the last poll time once polling
    /// stalled, or `nil` when cancelled.
    public func watch(lastPollMicros: @Sendable () -> Int64) async -> Int64? {
        let interval = min(limit / 10, .seconds(1))
        while true {
            do {
                try await clock.sleep(for: interval)
            } catch {
                return nil
            }
            let last = lastPollMicros()
            if Self.isStalled(lastPollMicros: last, nowMicros: clock.nowMicros(), limit: limit) { return last }
        }
    }
}
