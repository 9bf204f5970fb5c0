import KafkaTypes
import PushCore
import Synchronization
import TestSupport
import Testing

@testable import PushPipeline

/// A pipeline over fakes, with helpers to feed records, drive the clock and read what came out.
///
/// The pipeline's tasks run on `executor`, which knows when every one of them waits for the test: `settled` waits
/// for that point, and `advancing` moves the clock only there, to the next sleeper's deadline. No helper waits in
/// real time.
struct Harness {
    let clock = TestClock()
    let executor = TestExecutor()
    let source: FakeSource
    let sink = FakeSink()
    let sender = FakeSender()
    let observer = RecordingObserver()
    /// Whether the pipeline's `run` returned.
    let finished = Shared(false)
    var settings = PipelineSettings(
        inputTopics: ["chat"], retryTiers: RetryTiers(base: "retry"), receiptsTopic: "receipts", deadLetterTopic: "dlq",
        group: "group-1",
        worker: "worker-1")
    /// The token-invalidation guard the pipeline counts answers in; `nil`: none.
    var invalidations: TokenInvalidationWatch?

    init() {
        source = FakeSource(clock: clock)
        settings.retryBudget = .seconds(10)
        settings.maxAttempts = 4
    }

    func start(planner: any EventPlanner<String> = FakePlanner()) -> (Pipeline<String>, Task<PipelineStop, Never>) {
        let pipeline = Pipeline(
            source: source, sink: sink, planner: planner, sender: sender, retryPolicy: LinearDelays(),
            clock: clock,
            observer: observer, settings: settings, invalidations: invalidations, taskExecutor: executor)
        let finished = finished
        return (
            pipeline,
            Task(executorPreference: executor) {
                let stop = await pipeline.run()
                finished.update { $0 = true }
                return stop
            }
        )
    }

    /// Lets the pipeline run until every one of its tasks waits for the test (the clock, a held send, records) or
    /// ended, then whether `condition` holds. The clock does not move.
    func settled(_ condition: () -> Bool = { true }) async -> Bool {
        await executor.settle()
        return condition()
    }

    /// Shuts the pipeline down and returns how it stopped, moving the clock on while it drains (its grace
    /// period runs on the clock).
    func stop(_ running: (Pipeline<String>, Task<PipelineStop, Never>)) async -> PipelineStop {
        running.0.shutdown()
        _ = await advancing { finished.value }
        return await running.1.value
    }

    /// Settles (`settled`) and checks `condition`; while it does not hold, moves the clock to the earliest sleeper's
    /// deadline and settles again (`TestExecutor.advancing`): the pipeline's sleeps, retries, timers and polls run on
    /// the clock, and each move happens only once everything that could happen before it did. False when nobody
    /// sleeps (nothing can happen any more) or after `limit` of virtual time.
    func advancing(within limit: Duration = .seconds(7_200), until condition: () -> Bool) async -> Bool {
        await executor.advancing(clock, within: limit, until: condition)
    }

    /// Runs the pipeline until the stored offset of `chat` partition 0 is `offset`, moving the clock on (see
    /// `advancing`), then shuts it down; whether the offset was reached.
    func run(untilStored offset: Int64) async -> Bool {
        let running = start()
        let reached = await advancing { stored() == offset }
        _ = await stop(running)
        return reached
    }

    /// Starts the pipeline on the one record `m0;a` and asks it to shut down while that send is held in
    /// flight (the pipeline has begun its shutdown when the send is let go), then lets the send finish; how the
    /// pipeline stopped.
    func shutDownDuringTheOnlySend() async -> PipelineStop {
        sender.hold("m0/a")
        source.add([record("m0;a", offset: 0)])
        let running = start()
        #expect(await settled { sender.sent.contains("m0/a") })
        running.0.shutdown()
        #expect(await advancing { observer.all.contains(.shutdownStarted(inFlight: 1)) })
        #expect(!finished.value)
        sender.release("m0/a")
        #expect(await advancing { finished.value })
        return await running.1.value
    }

    func stored(_ topic: String = "chat", _ partition: Int32 = 0) -> Int64? {
        source.snapshot.stored[TopicPartition(topic, partition)]
    }

    /// What was produced on any of the retry tiers.
    func retryRecords() -> [KafkaProducerRecord] {
        sink.records.filter { settings.isRetryTopic($0.topic) }
    }

    /// Receipts as parsed JSON objects.
    func receipts() -> [JSONValue] {
        sink.records(on: "receipts").compactMap { try? JSONParser.parse($0.value) }
    }

    func receiptStatuses() -> [String: String] {
        var statuses: [String: String] = [:]
        for receipt in receipts() {
            if let user = receipt["userId"]?.stringValue, let status = receipt["status"]?.stringValue {
                statuses[user] = status
            }
        }
        return statuses
    }
}

func record(
    _ value: String, offset: Int64, key: String? = "room-a", topic: String = "chat", partition: Int32 = 0,
    headers: [KafkaHeader] = []
) -> KafkaRecord {
    KafkaRecord(
        topic: topic, partition: partition, offset: offset, key: key.map { Array($0.utf8) }, value: Array(value.utf8),
        headers: headers, timestampMilliseconds: 1_800_000_000_500)
}

extension KafkaProducerRecord {
    var text: String { String(decoding: value, as: UTF8.self) }

    func header(_ name: String) -> String? { headers.text(name) }
}
