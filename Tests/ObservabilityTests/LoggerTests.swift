import Foundation
import Testing

@testable import Observability

@Suite("Logger writes one JSON line per event")
struct LoggerTests {
    @Test func writesParseableJSONLinesWithTimestampLevelLabelMessageAndMetadata() throws {
        let lines = try captureLines { sink in
            let logger = Logger(label: "push-worker", level: .debug, metadata: ["worker.id": "pod-1"], sink: sink)
            logger.info("record consumed", metadata: ["kafka.partition": 3, "kafka.offset": LogMetadataValue(1234)])
            logger.debug("rules loaded", metadata: ["rules.types": ["text", "image"], "rules.fallback": true])
        }
        #expect(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["level"] as? String == "info")
        #expect(first["label"] as? String == "push-worker")
        #expect(first["message"] as? String == "record consumed")
        let timestamp = try #require(first["timestamp"] as? String)
        #expect(timestamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        let metadata = try #require(first["metadata"] as? [String: Any])
        #expect(metadata["kafka.partition"] as? Int == 3)
        #expect(metadata["kafka.offset"] as? Int == 1234)
        #expect(metadata["worker.id"] as? String == "pod-1")
        let second = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        let nested = try #require(second["metadata"] as? [String: Any])
        #expect(nested["rules.types"] as? [String] == ["text", "image"])
        #expect(nested["rules.fallback"] as? Bool == true)
    }

    @Test func dropsEventsBelowItsLevelWithoutBuildingTheirMetadata() throws {
        let built = Counter()
        let lines = try captureLines { sink in
            let logger = Logger(label: "test", level: .warning, sink: sink)
            logger.info(
                "ignored",
                metadata: {
                    built.increment(); return [:]
                }())
            logger.warning("kept")
            logger.error("kept")
        }
        #expect(lines.count == 2)
        #expect(built.value == 0)
    }

    @Test func eventMetadataWinsOverTheLoggersAndWithAddsContext() throws {
        let lines = try captureLines { sink in
            let base = Logger(label: "test", metadata: ["a": "logger", "b": "logger"], sink: sink)
            let child = base.with(["c": "child"])
            child.notice("merged", metadata: ["b": "event"])
        }
        let record = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let metadata = try #require(record["metadata"] as? [String: String])
        #expect(metadata == ["a": "logger", "b": "event", "c": "child"])
    }

    @Test func formatsAGoldenLineWithEscapingAndSortedKeys() {
        let record = LogRecord(
            timestamp: LogTimestamp(secondsSinceEpoch: 1_795_953_600, nanoseconds: 125_000_000),
            level: .error, label: "push-worker.kafka", message: "send failed",
            metadata: [
                "z": "quote \" backslash \\ newline \n tab \t bell \u{07}", "a.ratio": 0.5, "m": .double(.infinity),
                "n": [:],
            ])
        #expect(
            record.jsonLine()
                == #"{"timestamp":"2026-11-29T12:00:00.125Z","level":"error","label":"push-worker.kafka","#
                + #""message":"send failed","metadata":{"a.ratio":0.5,"m":"+Inf","n":{},"#
                + #""z":"quote \" backslash \\ newline \n tab \t bell \u0007"}}"#)
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.000Z"),
        (951_782_400, "2000-02-29T00:00:00.000Z"),
        (4_107_542_399, "2100-02-28T23:59:59.000Z"),
        (1_795_996_799, "2026-11-29T23:59:59.000Z"),
    ])
    func formatsTimestampsAsRFC3339InUTC(seconds: Int64, expected: String) {
        #expect(LogTimestamp(secondsSinceEpoch: seconds, nanoseconds: 0).rfc3339 == expected)
    }

    @Test(arguments: [
        ("info", LogLevel.info), ("WARN", .warning), ("warning", .warning), ("Trace", .trace), ("critical", .critical),
    ])
    func parsesLogLevelNames(text: String, level: LogLevel) {
        #expect(LogLevel(parsing: text) == level)
    }

    @Test func anUnknownLevelNameIsNoLevel() {
        #expect(LogLevel(parsing: "loud") == nil)
    }
}

/// Runs `body` with a JSON-lines sink writing into a pipe and returns the lines written.
func captureLines(_ body: (JSONLinesLogSink) -> Void) throws -> [String] {
    let pipe = Pipe()
    let sink = JSONLinesLogSink(descriptor: pipe.fileHandleForWriting.fileDescriptor)
    body(sink)
    try pipe.fileHandleForWriting.close()
    let data = try pipe.fileHandleForReading.readToEnd() ?? Data()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}
