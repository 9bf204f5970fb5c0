public import Observability
import Synchronization

/// A log sink that keeps every record a logger writes, for tests that check what was logged.
public final class LogLines: LogSink {
    private let kept = Mutex<[LogRecord]>([])

    public init() {}

    public func write(_ record: LogRecord) { kept.withLock { $0.append(record) } }

    /// The records written so far.
    public var records: [LogRecord] { kept.withLock { $0 } }

    /// The records written so far whose message is `message`.
    public func records(_ message: String) -> [LogRecord] { records.filter { $0.message.description == message } }
}
