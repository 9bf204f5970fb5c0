import Kafka
import Observability
import TestSupport
import Testing

@testable import Adapters

@Suite struct KafkaLoggingTests {
    @Test(arguments: [
        (Int32(0), LogLevel.critical), (2, .critical), (3, .error), (4, .warning), (5, .notice), (6, .info),
        (7, .debug),
    ])
    func librdkafkaSeveritiesBecomeLogLevels(severity: Int32, level: LogLevel) {
        #expect(LogLevel(syslogSeverity: severity) == level)
    }

    @Test func librdkafkaLinesAreLoggedWithFacilityAndText() {
        let sink = LogLines()
        let logger = Logger(label: "test", level: .trace, sink: sink)
        logger.kafkaLogHandler()(KafkaLogMessage(severity: 3, facility: "FAIL", message: "broker 1 down"))
        let records = sink.records
        #expect(records.count == 1)
        #expect(records.first?.level == .error)
        #expect(records.first?.metadata["kafka.facility"] == .string("FAIL"))
        #expect(records.first?.metadata["kafka.log"] == .string("broker 1 down"))
    }

    @Test func fatalClientErrorsAreCriticalAndOthersWarnings() {
        let sink = LogLines()
        let logger = Logger(label: "test", level: .trace, sink: sink)
        let handler = logger.kafkaErrorHandler()
        handler(KafkaError(code: .timedOut, message: "slow", isRetriable: true, isFatal: false))
        handler(KafkaError(code: .state, message: "fenced", isRetriable: false, isFatal: true))
        let levels = sink.records.map(\.level)
        #expect(levels == [.warning, .critical])
    }

    /// The librdkafka in use is one line at start: a warning naming what it costs below 2.2, else information.
    @Test(arguments: [
        ("2.0.2", 0x0200_02ff, LogLevel.warning), ("2.1.1", 0x0201_01ff, .warning), ("2.2.0", 0x0202_00ff, .info),
        ("2.16.1", 0x0210_01ff, .info),
    ])
    func theLibraryInUseIsLoggedWithAWarningBelow22(version: String, number: Int, level: LogLevel) {
        let sink = LogLines()
        Logger(label: "test", level: .trace, sink: sink).logKafkaLibrary(version: version, number: number)
        let records = sink.records
        #expect(records.map(\.level) == [level])
        #expect(records.first?.metadata["kafka.librdkafka"] == .string(version))
        let advice = records.first?.metadata["kafka.advice"]
        #expect((advice != nil) == (level == .warning))
    }

    @Test func theVersionNumberIsTheVersionItNames() {
        let parts = KafkaLibrary.version.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count == 3)
        #expect(KafkaLibrary.versionNumber >> 8 == parts[0] << 16 | parts[1] << 8 | parts[2])
    }
}
