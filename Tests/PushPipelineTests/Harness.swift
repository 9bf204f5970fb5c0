import KafkaTypes
import PushCore
import Synchronization
import TestSupport
import Testing

@testable import PushPipeline

/// A pipeline over fakes, with helpers to feed records and read what came out.
struct Harness {
    let clock = TestClock()
    let source: FakeSource
    let sink = FakeSink()
    let sender = FakeSender()
    let observer = RecordingObserver()
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
            observer: observer, settings: settings, invalidations: invalidations)
        return (pipeline, Task { await pipeline.run() })
    }

    /// Shuts the pipeline down and returns how it stopped, moving the clock on while it drains (its grace
    /// period runs on the clock).
    func stop(_ running: (Pipeline<String>, Task<PipelineStop, Never>)) async -> PipelineStop {
        running.0.shutdown()
        let stopped = Shared(false)
        let waiter = Task {
            let stop = await running.1.value
            stopped.update { $0 = true }
            return stop
        }
        _ = await eventuallyAdvancing { stopped.value }
        return await waiter.value
    }

    /// Waits until `condition` holds (see `eventually`), moving the test clock forward after each check that failed:
    /// the pipeline's sleeps, retries and timers run on it. Each move goes to the earliest sleeper's deadline, at least
    /// `step` and at most ten of them, so the virtual time a test needs takes few checks, however slowly a loaded
    /// machine runs them. False if it never held.
    func eventuallyAdvancing(by step: Duration = .milliseconds(100), _ condition: () async -> Bool) async -> Bool {
        await eventually {
            if await condition() { return true }
            clock.advance(by: min(max(clock.untilNextDeadline ?? step, step), step * 10))
            return false
        }
    }

    /// Runs the pipeline until the stored offset of `chat` partition 0 is `offset`, moving the clock on (see
    /// `eventuallyAdvancing`), then shuts it down; whether the offset was reached.
    func run(untilStored offset: Int64) async -> Bool {
        let running = start()
        let reached = await eventuallyAdvancing { stored() == offset }
        _ = await stop(running)
        return reached
    }

    /// Starts the pipeline on the one record `m0;a` and asks it to shut down while that send is held in
    /// flight, then lets the send finish; how the pipeline stopped.
    func shutDownDuringTheOnlySend() async -> PipelineStop {
        sender.hold("m0/a")
        source.add([record("m0;a", offset: 0)])
        let running = start()
        #expect(await eventually { sender.sent.contains("m0/a") })
        running.0.shutdown()
        try? await Task.sleep(for: .milliseconds(20))
        sender.release("m0/a")
        return await running.1.value
    }

    func stored(_ topic: String = "chat", _ partition: Int32 = 0) -> Int64? {
        source.snapshot.stored[TopicPartition(topic, partition)]
    }

    /// What was produced on any of the retry tiers.
    func retryRecords() -> [OutputRecord] {
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
    headers: [RecordHeader] = []
) -> InputRecord {
    InputRecord(
        topic: topic, partition: partition, offset: offset, key: key.map { Array($0.utf8) }, value: Array(value.utf8),
        headers: headers, timestampMillis: 1_800_000_000_500)
}

extension OutputRecord {
    var text: String { String(decoding: value, as: UTF8.self) }

    func header(_ name: String) -> String? { headers.text(name) }
}
