import Essentials

/// One log event, ready to be written.
public struct LogRecord: Sendable, Equatable {
    public var timestamp: LogTimestamp
    public var level: LogLevel
    public var label: String
    public var message: Logger.Message
    public var metadata: Logger.Metadata

    public init(
        timestamp: LogTimestamp,
        level: LogLevel,
        label: String,
        message: Logger.Message,
        metadata: Logger.Metadata
    ) {
        self.timestamp = timestamp
        self.level = level
        self.label = label
        self.message = message
        self.metadata = metadata
    }

    /// The event as one line of JSON without the newline:
    /// `{"timestamp":"…","level":"info","label":"…","message":"…","metadata":{…}}`, metadata keys sorted.
    public func jsonLine() -> String {
        var json = JSONWriter(reservingCapacity: 160)
        json.beginObject()
        json.field("timestamp", timestamp.rfc3339)
        json.field("level", level.rawValue)
        json.field("label", label)
        json.field("message", message.description)
        json.key("metadata")
        json.value(.dictionary(metadata))
        json.endObject()
        return json.text
    }
}
