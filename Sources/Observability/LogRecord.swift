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
        var json = JSONWriter()
        json.output.reserveCapacity(160)
        json.output += "{\"timestamp\":"
        json.write(string: timestamp.rfc3339)
        json.output += ",\"level\":"
        json.write(string: level.rawValue)
        json.output += ",\"label\":"
        json.write(string: label)
        json.output += ",\"message\":"
        json.write(string: message.description)
        json.output += ",\"metadata\":"
        json.write(.dictionary(metadata))
        json.output += "}"
        return json.output
    }
}
