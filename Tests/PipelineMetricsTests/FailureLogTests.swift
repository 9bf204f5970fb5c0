import KafkaTypes
import Observability
import PushCore
import PushPipeline
import TestSupport
import Testing

@testable import PipelineMetrics

@Suite("Failure logs: reasons, context, rate limits")
struct FailureLogTests {
    @Test func theFirstEventOfAKeyIsLoggedAndTheRestOfItsIntervalCountedIntoTheNextLine() {
        var limiter = LogRateLimiter(intervalMillis: 10_000)
        #expect(limiter.admit("a", nowMillis: 0) == .log(suppressed: 0))
        #expect(limiter.admit("a", nowMillis: 1) == .suppress)
        #expect(limiter.admit("b", nowMillis: 2) == .log(suppressed: 0))
        #expect(limiter.admit("a", nowMillis: 9_999) == .suppress)
        #expect(limiter.admit("a", nowMillis: 10_000) == .log(suppressed: 2))
        #expect(limiter.admit("a", nowMillis: 10_001) == .suppress)
        #expect(limiter.admit("a", nowMillis: 50_000) == .log(suppressed: 1))
        #expect(limiter.admit("a", nowMillis: 60_000) == .log(suppressed: 0))
    }

    @Test func pastMaxKeysNewKeysShareTheOverflowKeyUntilOldIntervalsEnd() {
        var limiter = LogRateLimiter(intervalMillis: 100, maxKeys: 2)
        #expect(limiter.admit("a", nowMillis: 0) == .log(suppressed: 0))
        #expect(limiter.admit("b", nowMillis: 0) == .log(suppressed: 0))
        #expect(limiter.admit("c", nowMillis: 1) == .log(suppressed: 0))
        #expect(limiter.admit("d", nowMillis: 2) == .suppress)
        // a and b's intervals are over: they are forgotten and e gets its own key.
        #expect(limiter.admit("e", nowMillis: 150) == .log(suppressed: 0))
    }

    @Test func aClockGoingBackwardsOrJumpingToEitherEndNeverTraps() {
        var limiter = LogRateLimiter(intervalMillis: 10)
        #expect(limiter.admit("a", nowMillis: .max) == .log(suppressed: 0))
        #expect(limiter.admit("a", nowMillis: .min) == .suppress)
        #expect(limiter.admit("b", nowMillis: .min) == .log(suppressed: 0))
        #expect(limiter.admit("b", nowMillis: .max) == .log(suppressed: 0))
        var full = LogRateLimiter(intervalMillis: 10, maxKeys: 1)
        #expect(full.admit("a", nowMillis: .max) == .log(suppressed: 0))
        #expect(full.admit("b", nowMillis: .min) == .log(suppressed: 0))
    }

    static let context = SendContext(
        provider: .fcm, messageId: "m-7", room: "r-42", tokenHash: "sha256:" + String(repeating: "ab", count: 32))

    @Test func aStormOfOneFailureBecomesOneLinePerIntervalWithItsReasonContextAndSuppressedCount() {
        let sink = LogLines()
        let clock = TestClock()
        let observer = ObservabilityObserver(
            logger: Logger(label: "test", sink: sink), metrics: PushMetrics(registry: MetricsRegistry()),
            logInterval: .seconds(10), clock: clock)
        let failure = DeliveryOutcome.retry(status: 503, reason: "UNAVAILABLE", after: .seconds(2))
        for _ in 0..<100 { observer.observe(.sendFailed(failure, Self.context)) }
        observer.observe(.sendFailed(.rejected(status: 400, reason: "INVALID_ARGUMENT"), Self.context))
        clock.advance(by: .seconds(10))
        observer.observe(.sendFailed(failure, Self.context))

        let lines = sink.records
        #expect(lines.map(\.message) == ["provider send failed", "provider rejected the send", "provider send failed"])
        #expect(lines.map(\.level) == [.warning, .warning, .warning])
        let first = lines[0].metadata
        #expect(first["push.reason"] == "UNAVAILABLE")
        #expect(first["http.status"] == 503)
        #expect(first["push.provider"] == "fcm")
        #expect(first["push.message_id"] == "m-7")
        #expect(first["push.room"] == "r-42")
        #expect(first["push.token"] == "sha256:abababababab")
        #expect(first["push.retry_after_ms"] == 2000)
        #expect(first["log.suppressed"] == nil)
        #expect(lines[2].metadata["log.suppressed"] == 99)
        #expect(!lines.contains { String(describing: $0.metadata).contains(String(repeating: "ab", count: 32)) })
    }

    @Test func handOffsDeadLettersAndBreakerChangesSayWhy() {
        let sink = LogLines()
        let observer = ObservabilityObserver(
            logger: Logger(label: "test", sink: sink), metrics: PushMetrics(registry: MetricsRegistry()),
            clock: TestClock())
        let transient = DeliveryFailure(reason: .transientFailure, message: "UNAVAILABLE", status: 503, attempts: 3)
        observer.observe(.sent(.fcm, .retry(status: 503, reason: "UNAVAILABLE", after: nil), latencyMillis: 4))
        observer.observe(.breakerOpened(.fcm))
        observer.observe(.deviceHandedOff(transient, Self.context))
        var exhausted = transient
        exhausted.reason = .retriesExhausted
        observer.observe(.deviceDeadLettered(exhausted, Self.context))
        observer.observe(
            .recordDeadLettered(
                DeliveryFailure(reason: .decodeError, message: "missing field id"), .init("chat.messages", 3),
                offset: 77))
        observer.observe(.breakerClosed(.fcm))

        let lines = sink.records
        #expect(
            lines.map(\.message) == [
                "provider breaker opened, its sends paused", "handed to the retry topic", "dead-lettered",
                "record dead-lettered", "provider breaker closed, its sends resumed",
            ])
        #expect(lines[0].metadata["push.reason"] == "UNAVAILABLE")
        #expect(lines[0].metadata["http.status"] == 503)
        #expect(lines[1].metadata["push.reason"] == "transient_failure")
        #expect(lines[1].metadata["error"] == "UNAVAILABLE")
        #expect(lines[1].metadata["push.attempts"] == 3)
        #expect(lines[1].metadata["push.message_id"] == "m-7")
        #expect(lines[2].metadata["push.reason"] == "retries_exhausted")
        #expect(lines[2].metadata["push.token"] == "sha256:abababababab")
        #expect(lines[3].metadata["push.reason"] == "decode_error")
        #expect(lines[3].metadata["kafka.offset"] == 77)
    }

    /// One message followed across systems: the record's W3C trace context is in the lines about its devices.
    @Test func aDevicesFailureLinesCarryItsRecordsTraceParent() {
        let sink = LogLines()
        let observer = ObservabilityObserver(
            logger: Logger(label: "test", sink: sink), metrics: PushMetrics(registry: MetricsRegistry()),
            clock: TestClock())
        var context = Self.context
        context.traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        observer.observe(
            .deviceHandedOff(DeliveryFailure(reason: .transientFailure, message: "UNAVAILABLE", attempts: 1), context))
        #expect(
            sink.records.first?.metadata["trace.parent"] == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        observer.observe(.deviceDeadLettered(DeliveryFailure(reason: .payloadTooLarge, message: "x"), Self.context))
        #expect(sink.records.last?.metadata["trace.parent"] == nil)
    }
}
