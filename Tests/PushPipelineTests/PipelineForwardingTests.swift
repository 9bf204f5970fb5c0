import KafkaTypes
import PushCore
import Synchronization
import TestSupport
import Testing

@testable import PushPipeline

/// A plan's forwarded records (the `assigned` scope's fan-out records) are outputs like receipts: the input offset
/// is stored only once Kafka acknowledged them.
@Suite(.timeLimit(.minutes(1))) struct PipelineForwardingTests {
    /// `FakePlanner`'s event with no devices, passing each of its devices' names on as a record to `fanout`, its value
    /// the device's token, after the message's id and a `/` when `naming`.
    struct ForwardingPlanner: EventPlanner {
        var naming = false

        func deviceBound(_ value: [UInt8]) -> Int { 1 }

        func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<String>, UndecodableEvent> {
            FakePlanner().plan(value, nowMillis: nowMillis).map { event in
                var event = event
                event.forwarded = event.devices.map { device in
                    KafkaProducerRecord(
                        topic: "fanout", partition: 3, key: Array(device.target.userId.utf8),
                        value: Array(((naming ? "\(event.messageId)/" : "") + device.target.token).utf8))
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

    /// Two messages of one room to the same clients, Kafka refusing the first's fan-out records once: the second's are
    /// written only after the first's were acknowledged, so each client's fan-out partition holds them in the room's
    /// order, in either room order (a forwarding record has no send to wait for).
    @Test(arguments: RoomOrdering.allCases)
    func aRoomsNextRecordIsForwardedOnlyOnceThePreviousOnesForwardedRecordsWereAcknowledged(
        order: RoomOrdering
    ) async {
        var harness = Harness()
        harness.settings.roomOrder = order
        harness.sink.failNext(1)
        harness.source.add([
            record("m1;a,b", offset: 0, key: "room-a"), record("m2;a,b", offset: 1, key: "room-a"),
            record("m3;c", offset: 2, key: "room-c"),
        ])
        let running = harness.start(planner: ForwardingPlanner(naming: true))
        #expect(await harness.advancing { harness.stored() == 3 })
        _ = await harness.stop(running)
        let forwarded = harness.sink.records(on: "fanout").map(\.text)
        #expect(
            forwarded.filter { !$0.hasPrefix("m3/") } == ["m1/token-a", "m1/token-b", "m2/token-a", "m2/token-b"])
        #expect(forwarded.contains("m3/token-c"))
    }

    /// A record frees its room at the point its room order names, unless its plan forwards records: then at its end,
    /// in either order; an undecodable record forwards nothing.
    @Test(arguments: RoomOrdering.allCases)
    func aRecordThatForwardsFreesItsRoomOnlyAtItsEnd(order: RoomOrdering) throws {
        let input = record("m1;a,b", offset: 0, key: "room-a")
        let source = SourcePosition(of: input, trustingHeaders: false)
        let forwarding = try ForwardingPlanner().plan(input.value, nowMillis: 0).get()
        let sending = try FakePlanner().plan(input.value, nowMillis: 0).get()
        #expect(!forwarding.forwarded.isEmpty && sending.forwarded.isEmpty)
        let ordered: RoomFreedPoint = order == .strict ? .settled : .firstAttempts
        let started = { (event: PlannedEvent<String>) in
            StartedRecord(record: input, source: source, event: event, devices: [])
        }
        #expect(started(forwarding).roomFreedPoint(order) == .end)
        #expect(started(sending).roomFreedPoint(order) == ordered)
        let undecodable = StartedRecord<String>(
            record: input, source: source, undecodable: UndecodableEvent(reason: .decodeError, message: "not JSON"))
        #expect(undecodable.roomFreedPoint(order) == ordered)
    }

    /// An IMKIT message in `room` to the clients `c0` … `c9`, saying `text`.
    static func message(_ index: Int, text: String = "hi") -> String {
        let clients = (0..<10).map { "\"c\($0)\"" }.joined(separator: ",")
        return #"{"_id":"m-\#(index)","messageType":"text","message":"\#(text)","sender":{"_id":"s"},"#
            + #""room":"room-\#(index)","pushToClients":[\#(clients)]}"#
    }

    /// Messages of ten clients each, Kafka refusing: only as many as the device budget holds are tried at once. A
    /// fan-out record holds a unit per started 4 KiB: ten clients of "hi" are ten units (a budget of 10: one message
    /// at a time), of a 5,000-byte text twenty (a budget of 100: five messages of ten).
    @Test(arguments: [
        (messages: 5, text: "hi", budget: 10, atOnce: 1), (10, String(repeating: "x", count: 5_000), 100, 5),
    ])
    func fannedOutRecordsHoldTheDeviceBudgetUntilKafkaAcknowledgesThem(
        messages: Int, text: String, budget: Int, atOnce: Int
    ) async {
        var harness = Harness()
        harness.settings.maxInFlightDevices = budget
        harness.sink.failNext(1_000)
        harness.source.add(
            (0..<messages).map { record(Self.message($0, text: text), offset: Int64($0), key: "room-\($0)") })
        let running = harness.start(
            planner: FanoutPlanner<String>(events: FakePlanner(), topic: "fanout", placement: { _ in 0 }))
        // Each message's ten fan-out records differ: the values tried are ten per message let in.
        #expect(await harness.settled { harness.sink.state.withLock { $0.attemptedValues.count } == atOnce * 10 })
        #expect(harness.sink.state.withLock { $0.attemptedValues.count } == atOnce * 10)
        harness.sink.failNext(0)
        #expect(await harness.advancing { harness.stored() == Int64(messages) })
        #expect(harness.sink.records(on: "fanout").count == messages * 10)
        _ = await harness.stop(running)
    }

    /// A message of 1,000,500 bytes: the consumer takes it (a broker's limit is about 1 MiB), but a fan-out record of
    /// it is more than the producer's `message.max.bytes` (1,000,000): dead-lettered whole, not fanned out.
    @Test func aMessageTooLargeToFanOutIsDeadLetteredNamingItsSource() async {
        let harness = Harness()
        harness.sink.state.withLock { $0.maximumValueBytes = 1_000_000 }
        let text = String(repeating: "x", count: 1_000_500 - Self.message(0).utf8.count + 2)
        let message = Self.message(0, text: text)
        #expect(message.utf8.count == 1_000_500)
        harness.source.add([record(message, offset: 7, key: "room-0", partition: 2)])
        let running = harness.start(
            planner: FanoutPlanner<String>(events: FakePlanner(), topic: "fanout", placement: { _ in 0 }))
        #expect(await harness.advancing { harness.stored("chat", 2) == 8 })
        #expect(harness.sink.records(on: "fanout").isEmpty)
        let deadLetters = harness.sink.records(on: "dlq")
        #expect(deadLetters.count == 1)
        #expect(deadLetters.first?.header("x-dlq-reason") == "record_too_large")
        #expect(deadLetters.first?.header("x-source-topic") == "chat")
        #expect(deadLetters.first?.header("x-source-partition") == "2")
        #expect(deadLetters.first?.header("x-source-offset") == "7")
        #expect(deadLetters.first?.header("x-value-dropped") == "1000500")
        _ = await harness.stop(running)
    }
}
