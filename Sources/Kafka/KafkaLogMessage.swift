/// One line librdkafka logs (connection failures, broker state changes, …), handed to the application's
/// log handler instead of being printed on stderr.
public struct KafkaLogMessage: Sendable, Equatable {
    /// The syslog severity librdkafka gives: 0 emergency … 3 error, 4 warning, 5 notice, 6 info, 7 debug.
    public var severity: Int32
    /// librdkafka's facility, e.g. `FAIL`, `REQTMOUT`.
    public var facility: String
    /// The text, prefixed by librdkafka with the client and broker it concerns.
    public var message: String

    public init(severity: Int32, facility: String, message: String) {
        self.severity = severity
        self.facility = facility
        self.message = message
    }
}

/// Receives librdkafka's log lines; called from librdkafka's own threads, so it must be quick and thread-safe.
public typealias KafkaLogHandler = @Sendable (KafkaLogMessage) -> Void

/// A callback context that can take librdkafka's log lines.
protocol KafkaLogReceiving: AnyObject, Sendable {
    var logHandler: KafkaLogHandler? { get }
}
