import KafkaTypes
import Synchronization
import TestSupport
import Testing

@testable import PushPipeline

/// A plan's forwarded records (the `assigned` scope's fan-out records) are outputs like receipts: the input offset
/// is stored only once Kafka acknowledged them.
@Suite(.timeLimit(.minutes(1))) struct PipelineForwardingTests {
    /// `FakePlanner`'s event with no devices, passing each of its devices' names on as a record to `fanout`.
    struct ForwardingPlanner: EventPlanner {
        func deviceBound(_ value: [UInt8]) -> Int { 1 }

        func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<String>, UndecodableEvent> {
            FakePlanner().plan(value, nowMillis: nowMillis).map { event in
                var event = event
                event.forwarded = event.devices.map { device in
                    KafkaProducerRecord(
                        topic: "fanout", partition: 3, key: Array(device.target.userId.utf8),
                        value: Array(device.target.token.utf8))
                }
                event.devices = []
                return event
            }
        }
    }

    static let traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func theOffsetIsStoredOnlyOnceTheForwardedRecordsAreAcknowledged() async {
        let harness = Harness()
        harness.sink.failNext(2)
        harness.source.add([
            record("m0;a,b", offset: 0, headers: [KafkaHeader(name: "traceparent", text: Self.traceParent)])
        ])
        let running = harness.start(planner: ForwardingPlanner())
        #expect(await harness.advancing { harness.stored() == 1 })
        #expect(harness.sink.state.withLock { $0.attempts } == 3)
        let forwarded = harness.sink.records(on: "fanout")
        #expect(forwarded.map(\.partition) == [3, 3])
        #expect(forwarded.map(\.text) == ["token-a", "token-b"])
        #expect(forwarded.allSatisfy { $0.header("traceparent") == Self.traceParent })
        #expect(harness.sink.records(on: "receipts").isEmpty)
        _ = await harness.stop(running)
    }
}
