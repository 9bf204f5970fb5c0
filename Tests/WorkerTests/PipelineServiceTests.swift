import KafkaTypes
import Observability
import PushPipeline
import TestSupport
import Testing

@testable import Worker

/// The pipeline as the last service of `run`'s group: ready once running, unready at once when shut down, then
/// drained, committed and closed.
@Suite struct PipelineServiceTests {
    @Test func cancelledItTurnsUnreadyAtOnceThenDrainsCommitsAndClosesTheSource() async {
        let clock = TestClock()
        let source = FakeSource(clock: clock)
        let settings = PipelineSettings(
            inputTopics: ["chat"], retryTiers: RetryTiers(base: "retry"), receiptsTopic: "receipts",
            deadLetterTopic: "dlq", group: "group-1", worker: "worker-1")
        let pipeline = Pipeline(
            source: source, sink: FakeSink(), planner: FakePlanner(), sender: FakeSender(), retryPolicy: LinearDelays(),
            clock: clock, observer: RecordingObserver(), settings: settings)
        let readiness = HealthChecks()
        readiness.set("pipeline", passing: false, detail: "starting")
        let service = PipelineService(
            pipeline: pipeline, readiness: readiness, logger: Logger(label: "test", level: .critical),
            invalidTokens: nil, clock: clock, port: 0)
        let running = Task { await service.run() }
        #expect(await eventually { readiness.evaluate().passing })
        running.cancel()
        #expect(!readiness.evaluate().passing)
        await running.value
        #expect(source.state.withLock { $0.closed && $0.commits == 1 })
    }

    @Test func cancelledWhileWaitingForTheInvalidTokenTableItNeverTurnsReady() async {
        let clock = TestClock()
        let source = FakeSource(clock: clock)
        let settings = PipelineSettings(
            inputTopics: ["chat"], retryTiers: RetryTiers(base: "retry"), receiptsTopic: "receipts",
            deadLetterTopic: "dlq", group: "group-1", worker: "worker-1")
        let pipeline = Pipeline(
            source: source, sink: FakeSink(), planner: FakePlanner(), sender: FakeSender(), retryPolicy: LinearDelays(),
            clock: clock, observer: RecordingObserver(), settings: settings)
        let readiness = HealthChecks()
        readiness.set("pipeline", passing: false, detail: "starting")
        let service = PipelineService(
            pipeline: pipeline, readiness: readiness, logger: Logger(label: "test", level: .critical),
            invalidTokens: (InvalidTokenTable(), .seconds(3600)), clock: clock, port: 0)
        let running = Task { await service.run() }
        try? await Task.sleep(for: .milliseconds(50))
        running.cancel()
        await running.value
        #expect(!readiness.evaluate().passing)
        #expect(source.state.withLock { $0.closed })
    }
}
