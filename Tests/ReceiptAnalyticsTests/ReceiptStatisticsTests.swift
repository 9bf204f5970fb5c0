import PushCore
import ReceiptAnalytics
import Testing

@Suite struct ReceiptStatisticsTests {
    static let minute: Int64 = 1_795_953_600_000  // 2026-11-29T12:00:00Z

    static func receipt(
        _ status: String, platform: String = "apns", type: String = "text", reason: String? = nil,
        attempts: Int = 1, latency: Double? = 10, second: Int64 = 0, run: String? = nil, worker: String = "w1"
    ) -> ReceiptFacts {
        ReceiptFacts(
            messageId: "m", type: type, platform: platform, status: status, reason: reason, attempts: attempts,
            latencyMillis: latency, timeMillis: minute + second * 1000, replayRunId: run, worker: worker)
    }

    static let sample: [ReceiptFacts] = [
        receipt("delivered", latency: 10),
        receipt("delivered", platform: "fcm", type: "image", latency: 20, second: 61),
        receipt("delivered", platform: "fcm", latency: 30, second: 62),
        receipt("skipped", reason: "muted", attempts: 0, latency: nil),
        receipt("invalid_token", platform: "fcm", reason: "UNREGISTERED", latency: 15, second: 125),
        receipt("dead_lettered", reason: "retries_exhausted", attempts: 5, latency: nil, second: 130, run: "r1"),
        receipt(
            "rejected", platform: "apns-voip", type: "call", reason: "BadTopic", latency: 5, run: "r1", worker: "w2"),
    ]

    func statistics(
        _ receipts: [ReceiptFacts] = sample, by: [BreakdownDimension] = [.platform, .status],
        filter: ReceiptFilter = .all
    ) -> ReceiptStatistics {
        var statistics = ReceiptStatistics(dimensions: by, filter: filter)
        for receipt in receipts { statistics.add(receipt) }
        return statistics
    }

    @Test func countsByStatusPlatformAndType() {
        let statistics = statistics()
        #expect(statistics.total == 7)
        #expect(
            statistics.byStatus == [
                "delivered": 3, "skipped": 1, "invalid_token": 1, "dead_lettered": 1, "rejected": 1,
            ])
        #expect(statistics.byPlatform["fcm"] == ["delivered": 2, "invalid_token": 1])
        #expect(statistics.byType["call"] == ["rejected": 1])
        #expect(statistics.breakdown[["apns", "delivered"]] == 1)
        #expect(statistics.attempts == [0: 1, 1: 5, 5: 1])
    }

    @Test func suspectReceiptsAreCountedApartAndAsInvalidToken() {
        var suspect = Self.receipt("invalid_token", reason: "BadDeviceToken")
        suspect.suspect = true
        suspect.receiptId = "r-1"
        var later = suspect
        later.worker = "w9"
        var other = suspect
        other.receiptId = "r-2"
        var statistics = ReceiptStatistics()
        // `later` is a copy of the first: it counts once, in both.
        for receipt in Self.sample + [suspect, later, other] { statistics.add(receipt) }
        #expect(statistics.suspect == 2)
        #expect(statistics.byStatus["invalid_token"] == 3)
        #expect(self.statistics().suspect == 0)
    }

    @Test func theDeliveryRateLeavesSkippedSendsOut() {
        #expect(statistics().deliveryRate == 3.0 / 6.0)
        #expect(statistics([Self.receipt("skipped")]).deliveryRate == nil)
    }

    @Test func failureReasonsAreRankedMostFirst() {
        let many = Self.sample + [Self.receipt("rejected", platform: "apns-voip", reason: "BadTopic")]
        let top = statistics(many).topFailureReasons(limit: 2)
        #expect(top.map(\.reason.reason) == ["BadTopic", "retries_exhausted"])
        #expect(top.map(\.count) == [2, 1])
    }

    @Test func theSeriesCountsEachMinute() {
        let minutes = statistics().minutes
        #expect(minutes.keys.sorted() == [Self.minute, Self.minute + 60_000, Self.minute + 120_000])
        #expect(minutes[Self.minute + 60_000] == ReceiptStatistics.Minute(receipts: 2, delivered: 2, skipped: 0))
        #expect(minutes[Self.minute]?.deliveryRate == 0.5)
        #expect(statistics().firstMillis == Self.minute)
        #expect(statistics().lastMillis == Self.minute + 130_000)
    }

    @Test func filtersSelectOneRunOrLeaveReplaysOut() {
        let run = statistics(filter: .replayRun("r1"))
        #expect(run.total == 2)
        #expect(run.filteredOut == 5)
        #expect(statistics(filter: .noReplays).total == 5)
    }

    @Test func aFloodOfDistinctValuesIsFoldedIntoOther() {
        let receipts = (0..<(ReceiptStatistics.maximumDistinctValues + 50)).map {
            Self.receipt("delivered", type: "t\($0)")
        }
        let statistics = statistics(receipts, by: [.type])
        #expect(statistics.byType.count == ReceiptStatistics.maximumDistinctValues + 1)
        #expect(statistics.byType["(other)"] == ["delivered": 50])
        #expect(statistics.total == receipts.count)
    }

    @Test func latencyQuantilesComeFromTheSketch() throws {
        let statistics = statistics()
        #expect(statistics.latency.count == 5)
        let median = try #require(statistics.latency.quantile(0.5))
        #expect(abs(median - 15) <= 0.15)
    }
}
