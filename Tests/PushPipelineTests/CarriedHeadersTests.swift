import Essentials
import KafkaTypes
import PushCore
import TestSupport
import Testing

@testable import PushPipeline

/// Which input headers reach a record's outputs, and how large those outputs can get.
@Suite(.timeLimit(.minutes(1))) struct CarriedHeadersTests {
    static let traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// 350 KB of `x-replay-run-id` on an input record with 2,000 muted devices: every receipt copied the header,
    /// 700 MB of outputs built in memory for a 440 KB record (12,000 devices made a crash loop under a 3 GiB limit).
    @Test func aRecordsOutputsStayWithinASmallMultipleOfItsOwnSize() throws {
        let recipients = (0..<20).map { user in
            let devices = (0..<100).map { #"{"platform":"fcm","token":"fcm-token-\#(user)-\#($0)"}"# }
            return #"{"userId":"u-\#(user)","muted":true,"devices":[\#(devices.joined(separator: ","))]}"#
        }
        let value =
            #"{"id":"m-1","type":"text","room":{"id":"r-42"},"sender":{"id":"u-1"},"recipients":["#
            + recipients.joined(separator: ",") + "]}"
        let input = record(
            value, offset: 7,
            headers: [KafkaHeader(name: "x-replay-run-id", text: String(repeating: "r", count: 350_000))])
        let planner = CorePlanner(
            rules: .standard, context: ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "demo-project"))
        let event = try planner.plan(input.value, nowMillis: 1_800_000_000_000).get()
        #expect(event.devices.count == 2_000)
        let outputs = RecordOutputs(settings: Harness().settings).forEvent(
            record: input, source: SourcePosition(of: input, trustingHeaders: false), messageId: event.messageId,
            room: event.roomId, type: event.type, eventTimeMillis: event.eventTimeMillis,
            results: event.devices.map { _ in .finished(FinishedDevice(.skipped, reason: "muted")) },
            target: { event.devices[$0].target },
            narrow: event.narrowed, nowMillis: 1_800_000_000_000)
        let recordBytes =
            input.value.count + input.headers.reduce(0) { $0 + $1.name.utf8.count + ($1.value?.count ?? 0) }
        let outputBytes = outputs.reduce(0) { $0 + $1.value.count + ($1.key?.count ?? 0) }
        #expect(outputs.count == 2_000)
        #expect(outputs.allSatisfy { $0.value.count < 1024 })
        #expect(outputBytes <= 8 * recordBytes)
    }

    /// The fuzzer's hostile provider answered a 200 with a 70 KB FCM name: every such receipt was 70 KB.
    @Test func aProvidersLongMessageIdOrReasonIsCutInTheReceipt() async {
        let harness = Harness()
        let huge = String(repeating: "n", count: 70_000)
        harness.sender.script("m1/a", [.delivered(providerMessageId: huge)])
        harness.sender.script("m1/b", [.rejected(status: 400, reason: huge)])
        harness.source.add([record("m1;a,b", offset: 0)])
        #expect(await harness.run(untilStored: 1))
        #expect(harness.sink.records(on: "receipts").count == 2)
        #expect(harness.sink.records(on: "receipts").allSatisfy { $0.value.count < 2048 })
    }

    @Test func anInputRecordsRunIdIsNotTaken() {
        let input = record("m1;a", offset: 0, headers: [KafkaHeader(name: "x-replay-run-id", text: "forged")])
        #expect(CarriedHeaders(of: input, settings: Harness().settings).replayRunId == nil)
    }

    @Test func aRetryRecordsRunIdIsTakenWhenItIsAValidRunId() {
        let settings = Harness().settings
        let written = record(
            "m1;a", offset: 0, topic: "retry-1000", headers: [KafkaHeader(name: "x-replay-run-id", text: "run-7")])
        #expect(CarriedHeaders(of: written, settings: settings).replayRunId == "run-7")
        for forged in [String(repeating: "r", count: 201), "", "run\n7"] {
            let input = record(
                "m1;a", offset: 0, topic: "retry-1000", headers: [KafkaHeader(name: "x-replay-run-id", text: forged)])
            #expect(CarriedHeaders(of: input, settings: settings).replayRunId == nil)
        }
    }

    @Test func aReplayRunsOwnIdWinsOverAnyHeader() {
        var settings = Harness().settings
        settings.replayRunId = "run-1"
        let input = record(
            "m1;a", offset: 0, topic: "retry-1000", headers: [KafkaHeader(name: "x-replay-run-id", text: "run-0")])
        #expect(CarriedHeaders(of: input, settings: settings).replayRunId == "run-1")
    }

    @Test func theReceiptsRetryAndDeadLetterRecordsOfARecordCarryItsTraceParentAndRunId() async {
        var harness = Harness()
        harness.settings.replayRunId = "run-1"
        harness.sender.script("m1/a", [.retry(status: 500, reason: "InternalServerError", after: .seconds(30))])
        harness.source.add([
            record(
                "m1;a,big1", offset: 0,
                headers: [
                    KafkaHeader(name: "traceparent", text: Self.traceParent), KafkaHeader(name: "x-other", text: "x"),
                ])
        ])
        #expect(await harness.run(untilStored: 1))
        #expect(harness.receipts().allSatisfy { $0["traceparent"] == .string(Self.traceParent) })
        #expect(harness.receipts().allSatisfy { $0["replayRunId"] == .string("run-1") })
        let handedOff = harness.retryRecords() + harness.sink.records(on: "dlq")
        #expect(handedOff.count == 2)
        for output in handedOff {
            #expect(output.header("traceparent") == Self.traceParent)
            #expect(output.header("x-replay-run-id") == "run-1")
            #expect(output.header("x-other") == nil)
        }
        let logged = harness.observer.all.compactMap { event -> String? in
            switch event {
            case .deviceHandedOff(_, let context), .deviceDeadLettered(_, let context): context.traceParent
            default: nil
            }
        }
        #expect(logged == [Self.traceParent, Self.traceParent])
        let failedSends = harness.observer.all.compactMap { event -> String? in
            if case .sendFailed(_, let context) = event { context.traceParent } else { nil }
        }
        #expect(!failedSends.isEmpty)
        #expect(failedSends.allSatisfy { $0 == Self.traceParent })
    }

    @Test func aMalformedTraceParentIsNotCarried() async {
        let harness = Harness()
        harness.source.add([record("m1;a", offset: 0, headers: [KafkaHeader(name: "traceparent", text: "00-zz")])])
        #expect(await harness.run(untilStored: 1))
        #expect(harness.receipts().first?["traceparent"] == nil)
    }

    @Test func aRetryRecordMovingOnKeepsOnlyTheWorkersHeadersEachBounded() {
        let outputs = RecordOutputs(settings: Harness().settings)
        let waiting = record(
            "m1;a", offset: 0, topic: "retry-3600000",
            headers: [
                KafkaHeader(name: "x-retry-not-before", text: String(1_800_000_000_000 + 7_200_000)),
                KafkaHeader(name: "x-dlq-error", text: String(repeating: "e", count: 100_000)),
                KafkaHeader(name: "x-foreign", text: String(repeating: "f", count: 100_000)),
                KafkaHeader(name: "traceparent", text: Self.traceParent),
            ])
        let moved = outputs.movingOn(waiting, nowMillis: 1_800_000_000_000)
        #expect(moved?.header("x-foreign") == nil)
        #expect(moved?.header("traceparent") == Self.traceParent)
        #expect((moved?.header("x-dlq-error")?.utf8.count ?? .max) <= OutputLimits.headerValueBytes)
    }
}

@Suite struct TraceParentTests {
    @Test(arguments: [
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-future-field",
    ])
    func aWellFormedTraceParentIsKeptAsItsFirst55Characters(text: String) {
        #expect(TraceParent(text)?.description == String(text.prefix(55)))
    }

    @Test(arguments: [
        "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
    ])
    func aMalformedTraceParentIsRefused(text: String) {
        #expect(TraceParent(text) == nil)
    }
}
