import KafkaTypes
import PushCore
import TestSupport
import Testing

@testable import PushPipeline

/// A provider of many push services (Web Push): each origin has its own breaker and in-flight limit.
@Suite struct PipelineOriginTests {
    static let failing = "https://a.example"

    @Test func aFailingOriginsBreakerHoldsBackOnlyItsSendsAndConsumptionGoesOn() async {
        var harness = Harness()
        harness.settings.providerFailureThreshold = 2
        harness.settings.probeInterval = .seconds(3600)
        harness.settings.retryBudget = .zero
        for index in 0..<6 {
            harness.sender.script("m\(index)/wa\(index)", [.retry(status: 503, reason: "HTTP 503", after: nil)])
        }
        harness.source.add((0..<6).map { record("m\($0);wa\($0),wb\($0)", offset: Int64($0), key: "room-q") })
        let running = harness.start()
        #expect(await harness.advancing { harness.stored() == 6 })
        #expect(harness.observer.all.contains(.originBreakerOpened(.webpush, origin: Self.failing)))
        #expect(running.0.snapshot.openOriginBreakers == 1)
        #expect(running.0.snapshot.openBreakers.isEmpty, "no provider as a whole is failing")
        #expect(harness.source.snapshot.paused.isEmpty)
        let sentToA = harness.sender.sent.filter { $0.contains("/wa") }
        #expect(sentToA == ["m0/wa0", "m1/wa1"], "nothing sent to the failing origin once its breaker opened")
        #expect(harness.sender.sent.filter { $0.contains("/wb") }.count == 6)
        #expect(harness.retryRecords().map(\.text) == (0..<6).map { "m\($0);wa\($0)" })
        let statuses = harness.receiptStatuses()
        #expect((0..<6).allSatisfy { statuses["u-wb\($0)"] == "delivered" })
        _ = await harness.stop(running)
    }

    @Test func aSuccessfulProbeClosesTheOriginsBreaker() async {
        var harness = Harness()
        harness.settings.providerFailureThreshold = 1
        harness.settings.probeInterval = .seconds(1)
        harness.sender.script("m0/wa0", [.retry(status: 500, reason: "HTTP 500", after: nil)])
        harness.source.add([record("m0;wa0", offset: 0), record("m1;wa1", offset: 1)])
        let running = harness.start()
        #expect(await harness.advancing { harness.stored() == 2 })
        #expect(harness.observer.all.contains(.originBreakerOpened(.webpush, origin: Self.failing)))
        #expect(harness.observer.all.contains(.originBreakerClosed(.webpush, origin: Self.failing)))
        #expect(running.0.snapshot.openOriginBreakers == 0)
        #expect(harness.receiptStatuses() == ["u-wa0": "delivered", "u-wa1": "delivered"])
        _ = await harness.stop(running)
    }

    @Test func aStallingOriginHoldsOnlyItsOwnInFlightSends() async {
        var harness = Harness()
        harness.settings.maxSendsPerOrigin = 2
        harness.settings.maxSendsPerProvider = 3
        harness.settings.maxConcurrentSends = 3
        let stalled = (0..<4).map { "m\($0)/wa\($0)" }
        for request in stalled { harness.sender.hold(request) }
        harness.source.add(
            (0..<4).map { record("m\($0);wa\($0)", offset: Int64($0), key: "room-\($0)") }
                + [record("m4;wb4", offset: 4, key: "room-4"), record("m5;f5", offset: 5, key: "room-5")])
        let running = harness.start()
        #expect(await harness.settled { harness.receiptStatuses()["u-wb4"] == "delivered" })
        #expect(harness.receiptStatuses()["u-f5"] == "delivered")
        #expect(harness.sender.sent.filter { $0.contains("/wa") }.count == 2, "the origin's limit")
        for request in stalled { harness.sender.release(request) }
        #expect(await harness.advancing { harness.stored() == 6 })
        _ = await harness.stop(running)
    }
}
