public import Essentials
public import Observability
import Synchronization

/// A logger's lines that a storm would repeat, at most one per key per interval (`LogRateLimiter`): the first line of a
/// key goes out at once, the next ones within its interval are counted and left out, and the first after it says how
/// many in `log.suppressed`. A line below the logger's level is neither written nor counted.
public final class RateLimitedLog: Sendable {
    private let logger: Logger
    private let clock: any WallClock
    private let limiter: Mutex<LogRateLimiter>

    /// Writes to `logger` at most one line per key per `interval` of `clock`, tracking up to `maxKeys` keys.
    public init(logger: Logger, interval: Duration, clock: any WallClock, maxKeys: Int = 256) {
        self.logger = logger
        self.clock = clock
        limiter = Mutex(LogRateLimiter(intervalMillis: interval.wholeMilliseconds, maxKeys: maxKeys))
    }

    /// Writes `message` at `level` unless a line of `key` went out within the interval.
    public func log(
        _ level: LogLevel, _ message: Logger.Message, key: String, metadata: @autoclosure () -> Logger.Metadata = [:]
    ) {
        guard logger.logLevel <= level else { return }
        let nowMillis = clock.nowMillis()
        guard case .log(let suppressed) = limiter.withLock({ $0.admit(key, nowMillis: nowMillis) }) else { return }
        var metadata = metadata()
        if suppressed > 0 { metadata["log.suppressed"] = .init(suppressed) }
        logger.log(level: level, message, metadata: metadata)
    }

    /// `log(.warning, …)`.
    public func warning(key: String, _ message: Logger.Message, metadata: @autoclosure () -> Logger.Metadata = [:]) {
        log(.warning, message, key: key, metadata: metadata())
    }

    /// `log(.error, …)`.
    public func error(key: String, _ message: Logger.Message, metadata: @autoclosure () -> Logger.Metadata = [:]) {
        log(.error, message, key: key, metadata: metadata())
    }
}
