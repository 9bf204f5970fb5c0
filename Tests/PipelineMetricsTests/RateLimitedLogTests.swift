import Observability
import TestSupport
import Testing

@testable import PipelineMetrics

/// One line per key per interval, the next one saying how many were left out; lines below the logger's level are
/// neither written nor counted.
@Suite struct RateLimitedLogTests {
    @Test func aKeysLinesWithinTheIntervalAreLeftOutAndCountedInTheNextOne() {
        let clock = ManualClock()
        let lines = LogLines()
        let log = RateLimitedLog(logger: Logger(label: "t", sink: lines), interval: .seconds(60), clock: clock)
        for index in 0..<5 { log.warning(key: "a", "line a", metadata: ["n": .init(index)]) }
        log.error(key: "b", "line b")
        clock.advance(by: .seconds(59))
        log.warning(key: "a", "line a", metadata: ["n": .init(5)])
        #expect(lines.records.map(\.message.description) == ["line a", "line b"])
        clock.advance(by: .seconds(1))
        log.warning(key: "a", "line a", metadata: ["n": .init(6)])
        log.warning(key: "a", "line a", metadata: ["n": .init(7)])
        clock.advance(by: .seconds(60))
        log.warning(key: "a", "line a", metadata: ["n": .init(8)])
        let a = lines.records("line a")
        #expect(a.map { $0.metadata["n"] } == [.integer(0), .integer(6), .integer(8)])
        // Five left out before the second line (1 to 5), one before the third (7); none before the first.
        #expect(a.map { $0.metadata["log.suppressed"] } == [nil, .integer(5), .integer(1)])
        #expect(lines.records("line b").map(\.level) == [.error])
    }

    @Test func linesBelowTheLoggersLevelAreNeitherWrittenNorCounted() {
        let clock = ManualClock()
        let lines = LogLines()
        let log = RateLimitedLog(
            logger: Logger(label: "t", level: .warning, sink: lines), interval: .seconds(10), clock: clock)
        for _ in 0..<3 { log.log(.info, "quiet", key: "a") }
        log.warning(key: "a", "loud")
        #expect(lines.records.map(\.message.description) == ["loud"])
        #expect(lines.records.first?.metadata["log.suppressed"] == nil)
    }
}
