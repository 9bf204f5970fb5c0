import Kafka
import Observability
import Synchronization
import Testing

@testable import Worker

/// Keeps every record a logger writes.
private final class RecordingSink: LogSink {
    let records = Mutex<[LogRecord]>([])

    func write(_ record: LogRecord) {
        records.withLock { $0.append(record) }
    }
}

@Suite struct KafkaLoggingTests {
    @Test(arguments: [
        (Int32(0), LogLevel.critical), (2, .critical), (3, .error), (4, .warning), (5, .notice), (6, .info),
        (7, .debug),
    ])
    func librdkafkaSeveritiesBecomeLogLevels(severity: Int32, level: LogLevel) {
        #expect(LogLevel(syslogSeverity: severity) == level)
    }

    @Test func librdkafkaLinesAreLoggedWithFacilityAndText() {
        let sink = RecordingSink()
        let logger = Logger(label: "test", level: .trace, sink: sink)
        logger.kafkaLogHandler()(KafkaLogMessage(severity: 3, facility: "FAIL", message: "broker 1 down"))
        let records = sink.records.withLock { $0 }
        #expect(records.count == 1)
        #expect(records.first?.level == .error)
        #expect(records.first?.metadata["kafka.facility"] == .string("FAIL"))
        #expect(records.first?.metadata["kafka.log"] == .string("broker 1 down"))
    }

    @Test func fatalClientErrorsAreCriticalAndOthersWarnings() {
        let sink = RecordingSink()
        let logger = Logger(label: "test", level: .trace, sink: sink)
        let handler = logger.kafkaErrorHandler()
        handler(KafkaError(code: .timedOut, message: "slow", isRetriable: true, isFatal: false))
        handler(KafkaError(code: .state, message: "fenced", isRetriable: false, isFatal: true))
        let levels = sink.records.withLock { $0.map(\.level) }
        #expect(levels == [.warning, .critical])
    }
}
