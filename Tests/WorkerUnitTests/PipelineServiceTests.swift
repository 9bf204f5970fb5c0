import KafkaTypes
import Lifecycle
import Observability
import PushPipeline
import Synchronization
import TestSupport
import Testing

@testable import Worker

/// The pipeline as the last service of `run`'s group: ready once running, unready at once when asked to shut down,
/// then drained, committed and closed.
@Suite(.timeLimit(.minutes(1))) struct PipelineServiceTests {
    let clock = TestClock()
    /// The executor the service and the pipeline's tasks run on: the test moves the clock only once they all wait.
    let executor = TestExecutor()
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
            clock: clock, observer: RecordingObserver(), settings: settings, taskExecutor: executor)
        return PipelineService(
            pipeline: pipeline, readiness: readiness, logger: Logger(label: "test", level: .critical),
            invalidTokens: invalidTokens, clock: clock, port: 0)
    }

    @Test func askedToShutDownItTurnsUnreadyAtOnceThenDrainsCommitsAndClosesTheSource() async {
        let service = service()
        let shutdown = GracefulShutdown()
        let finished = Shared(false)
        let running = Task(executorPreference: executor) {
            await service.run(shutdown: shutdown)
            finished.update { $0 = true }
        }
        await executor.settle()
        #expect(readiness.evaluate().passing)
        shutdown.request()
        #expect(!readiness.evaluate().passing)
        // An idle poll of the fake source ends at its timeout on the clock.
        #expect(await executor.advancing(clock) { finished.value })
        await running.value
        #expect(source.state.withLock { $0.closed && $0.commits == 1 })
    }

    @Test func askedToShutDownWhileWaitingForTheInvalidTokenTableItNeverTurnsReady() async {
        let service = service(invalidTokens: (InvalidTokenTable(), .seconds(3600)))
        let shutdown = GracefulShutdown()
        let finished = Shared(false)
        let running = Task(executorPreference: executor) {
            await service.run(shutdown: shutdown)
            finished.update { $0 = true }
        }
        // A minute of waiting for the table, in virtual time: still waiting, not ready, not polling.
        #expect(await executor.advancing(clock, within: .seconds(60)) { finished.value } == false)
        #expect(!readiness.evaluate().passing)
        #expect(source.state.withLock { $0.polls } == 0)
        shutdown.request()
        #expect(await executor.advancing(clock) { finished.value })
        await running.value
        #expect(!readiness.evaluate().passing)
        #expect(source.state.withLock { $0.closed })
    }
}
