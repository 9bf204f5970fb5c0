import KafkaTypes
import Lifecycle
import Observability
import PushPipeline
import TestSupport
import Testing

@testable import Worker

/// The pipeline as the last service of `run`'s group: ready once running, unready at once when asked to shut down,
/// then drained, committed and closed.
@Suite(.timeLimit(.minutes(1))) struct PipelineServiceTests {
    let clock = TestClock()
    let source: FakeSource
    let readiness = HealthChecks()

    init() {
        source = FakeSource(clock: clock)
        readiness.set("pipeline", passing: false, detail: "starting")
    }

    /// The service over a pipeline of fakes, waiting for `invalidTokens` first when given.
    func service(invalidTokens: (InvalidTokenTable, Duration)? = nil) -> PipelineService<String> {
        let settings = PipelineSettings(
            inputTopics: ["chat"], retryTiers: RetryTiers(base: "retry"), receiptsTopic: "receipts",
            deadLetterTopic: "dlq", group: "group-1", worker: "worker-1")
        let pipeline = Pipeline(
            source: source, sink: FakeSink(), planner: FakePlanner(), sender: FakeSender(), retryPolicy: LinearDelays(),
            clock: clock, observer: RecordingObserver(), settings: settings)
        return PipelineService(
            pipeline: pipeline, readiness: readiness, logger: Logger(label: "test", level: .critical),
            invalidTokens: invalidTokens, clock: clock, port: 0)
    }

    @Test func askedToShutDownItTurnsUnreadyAtOnceThenDrainsCommitsAndClosesTheSource() async {
        let service = service()
        let shutdown = GracefulShutdown()
        let running = Task { await service.run(shutdown: shutdown) }
        await yielding { readiness.evaluate().passing }
        shutdown.request()
        #expect(!readiness.evaluate().passing)
        // An idle poll of the fake source ends at its timeout on the clock.
        await clock.advance(by: .milliseconds(100), until: running)
        #expect(source.state.withLock { $0.closed && $0.commits == 1 })
    }

    @Test func askedToShutDownWhileWaitingForTheInvalidTokenTableItNeverTurnsReady() async {
        let service = service(invalidTokens: (InvalidTokenTable(), .seconds(3600)))
        let shutdown = GracefulShutdown()
        let running = Task { await service.run(shutdown: shutdown) }
        // A minute of waiting for the table, in virtual time.
        for _ in 0..<3000 {
            clock.advance(by: .milliseconds(20))
            await Task.yield()
        }
        shutdown.request()
        await clock.advance(by: .milliseconds(100), until: running)
        #expect(!readiness.evaluate().passing)
        #expect(source.state.withLock { $0.closed })
    }
}
