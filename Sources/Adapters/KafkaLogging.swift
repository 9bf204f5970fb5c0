package import Kafka
import Observability
import PushPipeline

extension Logger {
    /// librdkafka's own log lines as events of this logger, at the level matching their syslog severity.
    package func kafkaLogHandler() -> KafkaLogHandler {
        { [self] line in
            log(
                level: LogLevel(syslogSeverity: line.severity), "librdkafka",
                metadata: ["kafka.facility": .string(line.facility), "kafka.log": .string(line.message)])
        }
    }

    /// The librdkafka the process runs on, one line at start; a warning below 2.2 (`KafkaLibrary.shortcoming`).
    package func logKafkaLibrary(version: String = KafkaLibrary.version, number: Int = KafkaLibrary.versionNumber) {
        if let shortcoming = KafkaLibrary.shortcoming(ofVersion: number) {
            warning(
                "librdkafka", metadata: ["kafka.librdkafka": .string(version), "kafka.advice": .string(shortcoming)])
        } else {
            info("librdkafka", metadata: ["kafka.librdkafka": .string(version)])
        }
    }

    /// Errors a Kafka client reports outside a delivery (broker down, authentication, fatal) as warnings, or
    /// as critical events when the client can no longer be used.
    package func kafkaErrorHandler() -> @Sendable (KafkaError) -> Void {
        { [self] error in
            log(
                level: error.isFatal ? .critical : .warning, "kafka client error",
                metadata: [
                    "kafka.error": .string(error.name), "kafka.error_message": .string(error.message),
                    "kafka.retriable": .bool(error.isRetriable),
                ])
        }
    }
}

extension LogLevel {
    /// The level of a syslog severity: 0–2 critical, 3 error, 4 warning, 5 notice, 6 info, 7 debug.
    init(syslogSeverity severity: Int32) {
        switch severity {
        case ...2: self = .critical
        case 3: self = .error
        case 4: self = .warning
        case 5: self = .notice
        case 6: self = .info
        default: self = .debug
        }
    }
}
