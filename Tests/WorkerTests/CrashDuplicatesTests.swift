import Essentials
import Foundation
import IntegrationSupport
import TestSupport
import Testing

/// What a kill -9 at full speed sends twice, with the product's commit cadence.
@Suite(.serialized) struct CrashDuplicatesTests {
    /// 16,000 one-device events written while no worker runs (a backlog the worker then drains as fast as it can);
    /// once the simulator has seen a quarter of the pushes, the throughput is measured over one second and the
    /// worker is killed; a replacement finishes the backlog.
    ///
    /// The bound: the replacement resends the records whose receipts Kafka acknowledged but whose offsets the group
    /// had not committed: those in flight at the kill (at most `PUSH_MAX_IN_FLIGHT`, plus the last poll's
    /// `PUSH_BATCH_SIZE`: the loop stops polling at the limit; both set low here, so that the bound is mostly the
    /// second of work) and those finished since the last commit that succeeded, which with the product's commit
    /// cadence is well under a second of work. One device per event: receipts count records.
    @Test func killedAtFullSpeedItLosesNothingAndRepeatsAtMostItsWorkInFlightAndOneSecondOfThroughput()
        async throws
    {
        let (count, maxInFlight, batch) = (16_000, 200, 100)
        let run = try await EndToEnd(
            workerEnvironment: CommitCadence.productDefault.merging([
                "PUSH_MAX_IN_FLIGHT": "\(maxInFlight)", "PUSH_BATCH_SIZE": "\(batch)",
            ]) { $1 })
        // The backlog is written while no worker runs: the first one stops before it reads anything.
        #expect(await RollingRestartTests.waitUntilAssigned(run.worker, within: .seconds(60)))
        run.worker.signal(SIGTERM)
        #expect(await run.worker.exitStatus() == 0)
        try await run.produce(
            (0..<count).map { index in
                (key: "r-\(index % 50)", value: EndToEnd.event(index, device: index % 2, rooms: 50))
            })
        try run.startWorker(replacing: true)
        #expect(
            try await eventually(within: .seconds(60), every: .milliseconds(50)) {
                try await run.simulator.stats().streams >= count / 4
            })
        let before = try await run.simulator.stats().streams
        let measured = ContinuousClock.now
        try await Task.sleep(for: .seconds(1))
        let after = try await run.simulator.stats().streams
        let perSecond = Double(after - before) / (ContinuousClock.now - measured).fractionalSeconds
        run.worker.signal(SIGKILL)
        _ = await run.worker.exitStatus()
        let sentBeforeTheKill = try await run.simulator.stats().streams
        // The simulator refuses a new APNs provider token within 20 minutes of the last one (per key); the
        // replacement signs its own, so the simulator forgets the old one.
        _ = try await run.simulator.control("POST", "/control/apns-reset", body: "{}")
        try run.startWorker(replacing: true)
        let outputs = try await run.read(["push.receipts"], within: .seconds(300)) {
            ReceiptCount($0).distinct >= count
        }
        #expect(await run.stop() == 0)
        let receipts = ReceiptCount(outputs)
        let inFlight = maxInFlight + batch
        let bound = inFlight + Int(perSecond.rounded(.up))
        print(
            "kill -9 at full speed (\(Int(perSecond)) pushes/s, \(sentBeforeTheKill) of \(count) sent before the "
                + "kill): lost \(count - receipts.distinct), duplicates \(receipts.duplicates) "
                + "(bound \(bound): \(inFlight) in flight + 1 s)")
        #expect(sentBeforeTheKill < count, "the kill came after the backlog was sent")
        #expect(receipts.distinct == count)
        #expect(receipts.duplicates <= bound)
    }
}
