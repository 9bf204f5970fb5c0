/// A structured logger shaped like swift-log's: a label, a minimum level, constant messages and data in
/// metadata with dotted keys (`kafka.partition`, `push.provider`).
///
/// Create one at the top of the program (`Logger(label: "push-worker", level: configuration.logLevel)`) and
/// pass it down; a component adds its own context with `with(_:)` instead of creating a logger of its own.
public struct Logger: Sendable {
    /// Metadata keyed by dotted names.
    public typealias Metadata = [String: LogMetadataValue]

    /// A log message: a string literal only, so that variable data goes into metadata where it can be queried.
    public struct Message: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let description: String

        public init(stringLiteral value: String) {
            description = value
        }
    }

    /// What the events of this logger are about, e.g. `push-worker` or `push-worker.kafka`.
    public let label: String
    /// Events below this level are dropped before their metadata is built.
    public var logLevel: LogLevel
    /// Metadata attached to every event of this logger.
    public var metadata: Metadata
    private let sink: any LogSink

    /// A logger writing JSON lines to stderr unless another sink is given.
    public init(label: String, level: LogLevel = .info, metadata: Metadata = [:], sink: any LogSink = .standardError) {
        self.label = label
        self.logLevel = level
        self.metadata = metadata
        self.sink = sink
    }

    /// One entry of this logger's metadata.
    public subscript(metadataKey key: String) -> LogMetadataValue? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// A copy of this logger with `extra` added to its metadata (the new values win).
    public func with(_ extra: Metadata) -> Logger {
        var copy = self
        copy.metadata.merge(extra) { _, new in new }
        return copy
    }

    /// Whether an event of `level` would be written.
    public func isEnabled(_ level: LogLevel) -> Bool {
        level >= logLevel
    }

    /// Writes one event if `level` is enabled; the event's metadata wins over the logger's.
    public func log(level: LogLevel, _ message: Message, metadata extra: @autoclosure () -> Metadata = [:]) {
        guard isEnabled(level) else { return }
        let extra = extra()
        let merged = extra.isEmpty ? metadata : metadata.merging(extra) { _, event in event }
        sink.write(LogRecord(timestamp: .now(), level: level, label: label, message: message, metadata: merged))
    }

    /// Writes a `trace` event.
    public func trace(_ message: Message, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .trace, message, metadata: metadata())
    }

    /// Writes a `debug` event.
    public func debug(_ message: Message, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .debug, message, metadata: metadata())
    }

    /// Writes an `info` event.
    public func info(_ message: Message, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .info, message, metadata: metadata())
    }

    /// Writes a `notice` event.
    public func notice(_ message: Message, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .notice, message, metadata: metadata())
    }

    /// Writes a `warning` event.
    public func warning(_ message: Message, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .warning, message, metadata: metadata())
    }

    /// Writes an `error` event.
    public func error(_ message: Message, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .error, message, metadata: metadata())
    }

    /// Writes a `critical` event.
    public func critical(_ message: Message, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .critical, message, metadata: metadata())
    }
}
