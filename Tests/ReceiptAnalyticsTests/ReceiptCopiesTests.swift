import PushCore
import ReceiptAnalytics
import Testing

/// `receipts stats` counts each `receiptId` once, says how many copies it dropped, and how exactly.
@Suite struct ReceiptCopiesTests {
    static func receipt(_ id: String?, status: String = "delivered") -> ReceiptFacts {
        var receipt = ReceiptStatisticsTests.receipt(status)
        receipt.receiptId = id
        return receipt
    }

    static func statistics(_ ids: [String?], countsCopies: Bool = false, limit: Int = 100) -> ReceiptStatistics {
        var statistics = ReceiptStatistics(countsCopies: countsCopies, distinctLimit: limit)
        for id in ids { statistics.add(receipt(id)) }
        return statistics
    }

    @Test func copiesOfOneReceiptIdCountOnceAndAreReportedAsDropped() {
        let statistics = Self.statistics(["a", "b", "a", "c", "b", "a"])
        #expect(statistics.total == 3)
        #expect(statistics.byStatus == ["delivered": 3])
        #expect(statistics.breakdown == [["delivered"]: 3])
        #expect(statistics.copiesDropped == 3)
        #expect(statistics.copiesAreExact)
    }

    @Test func receiptIdsOfOtherBytesAreNotCopiesEvenWhenCanonicallyEquivalent() {
        let statistics = Self.statistics(["caf\u{E9}", "cafe\u{301}", "caf\u{E9}"])
        #expect(statistics.total == 2)
        #expect(statistics.copiesDropped == 1)
    }

    @Test func countingCopiesCountsEveryRecord() {
        let statistics = Self.statistics(["a", "b", "a"], countsCopies: true)
        #expect(statistics.total == 3)
        #expect(statistics.copiesDropped == 0)
    }

    @Test func receiptsWithoutAnIdCountEveryTimeTheyAreRead() {
        let statistics = Self.statistics([nil, nil, "a", "a"])
        #expect(statistics.total == 3)
        #expect(statistics.withoutReceiptId == 2)
        #expect(statistics.copiesDropped == 1)
    }

    @Test func aCopyOfAFilteredOutReceiptIsFilteredOutNotDropped() {
        var statistics = ReceiptStatistics(filter: .noReplays)
        var replayed = Self.receipt("a")
        replayed.replayRunId = "run-1"
        statistics.add(replayed)
        statistics.add(replayed)
        #expect(statistics.filteredOut == 2)
        #expect(statistics.copiesDropped == 0)
    }

    @Test func upToTheLimitEveryCopyIsRecognized() {
        let ids = (0..<8).map { "id-\($0)" }
        let statistics = Self.statistics(ids + ids.reversed(), limit: 8)
        #expect(statistics.total == 8)
        #expect(statistics.copiesDropped == 8)
        #expect(statistics.copiesAreExact)
    }

    @Test func beyondTheLimitACopyWithinHalfTheLimitOfItsFirstIsStillDroppedAndTheCountSaysApproximate() {
        let ids = (0..<20).map { "id-\($0)" }
        // Each id's copy comes three ids after it: within half the limit (4), so every copy is recognized.
        var sequence: [String] = []
        for (index, id) in ids.enumerated() {
            sequence.append(id)
            if index >= 3 { sequence.append(ids[index - 3]) }
        }
        let near = Self.statistics(sequence, limit: 8)
        #expect(near.total == 20)
        #expect(near.copiesDropped == 17)
        #expect(!near.copiesAreExact)
        // A copy read long after its first (more than the limit's distinct ids later) counts again.
        let far = Self.statistics(ids + ["id-0"], limit: 8)
        #expect(far.total == 21)
        #expect(!far.copiesAreExact)
    }

    @Test func theReceiptIdIsReadFromTheJSON() {
        let json = #"{"receiptId":"r-1","messageId":"m","type":"text","platform":"fcm","status":"delivered"}"#
        #expect(ReceiptFacts(json: Array(json.utf8), recordTimestampMillis: nil)?.receiptId == "r-1")
        let older = #"{"messageId":"m","type":"text","platform":"fcm","status":"delivered"}"#
        #expect(ReceiptFacts(json: Array(older.utf8), recordTimestampMillis: nil)?.receiptId == nil)
    }

    @Test func everyFormatSaysHowManyCopiesWereDropped() throws {
        let statistics = Self.statistics(["a", "a", nil])
        let json = try JSONParser.parse(Array(StatisticsJSON.render(statistics).utf8))
        #expect(json["copies"]?["dropped"] == .number("1"))
        #expect(json["copies"]?["withoutReceiptId"] == .number("1"))
        #expect(json["copies"]?["exact"] == .bool(true))
        #expect(json["copies"]?["counted"] == .bool(false))
        #expect(StatisticsTable.render(statistics).contains("copies dropped: 1;"))
        #expect(StatisticsHTML.render(statistics, title: "t").contains(#"data-metric="copies.dropped">1<"#))
        #expect(StatisticsCSV.render(statistics).split(separator: "\n").last == "delivered,2")
    }
}
