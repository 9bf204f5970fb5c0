import Essentials
import Foundation
import PushCore
import ReceiptAnalytics
import Testing

@Suite struct ReportFormatTests {
    func statistics(by: [BreakdownDimension] = [.platform, .status]) -> ReceiptStatistics {
        var statistics = ReceiptStatistics(dimensions: by)
        for receipt in ReceiptStatisticsTests.sample { statistics.add(receipt) }
        return statistics
    }

    @Test func theJSONHasTheContractsKeysAndNumbers() throws {
        let json = try JSONParser.parse(Array(StatisticsJSON.render(statistics()).utf8))
        #expect(json["total"] == .number("7"))
        #expect(json["byStatus"]?["delivered"] == .number("3"))
        #expect(json["byPlatform"]?["fcm"]?["invalid_token"] == .number("1"))
        #expect(json["byType"]?["image"]?["delivered"] == .number("1"))
        #expect(json["deliveryRate"] == .number("0.5"))
        #expect(json["suspect"] == .number("0"))
        #expect(json["latencyMs"]?["p50"] == .number(DecimalText.format(statistics().latency.quantile(0.5) ?? 0)))
        #expect(json["window"]?["first"] == .string("2026-11-29T12:00:00.000Z"))
        #expect(json["window"]?["last"] == .string("2026-11-29T12:02:10.000Z"))
        guard case .array(let rows) = json["breakdown"]?["rows"] else {
            Issue.record("no breakdown rows")
            return
        }
        #expect(
            rows.first
                == .object([
                    .init("platform", .string("fcm")), .init("status", .string("delivered")),
                    .init("count", .number("2")),
                ]))
    }

    @Test func theCSVIsTheBreakdownWithAHeader() {
        let lines = StatisticsCSV.render(statistics(by: [.platform, .status])).split(separator: "\n")
        #expect(lines.first == "platform,status,receipts")
        #expect(lines.dropFirst().first == "fcm,delivered,2")
        #expect(lines.count == 7)
    }

    @Test func theCSVsFieldsGoThroughTheOneCSVWriter() {
        var statistics = ReceiptStatistics(dimensions: [.type])
        statistics.add(ReceiptStatisticsTests.receipt("delivered", type: "=HYPERLINK(\"x\",\"y\")"))
        statistics.add(ReceiptStatisticsTests.receipt("delivered", type: "a,b"))
        let lines = StatisticsCSV.render(statistics).split(separator: "\n")
        #expect(lines.contains(#""'=HYPERLINK(""x"",""y"")",1"#))
        #expect(lines.contains(#""a,b",1"#))
    }

    @Test func theTableNamesEverySection() {
        let table = StatisticsTable.render(statistics())
        for heading in ["by status:", "by platform:", "by type:", "attempts:", "top failure reasons:", "per minute:"] {
            #expect(table.contains("\n\(heading)\n"), "\(heading)")
        }
        #expect(table.contains("delivery rate: 50 %"))
        #expect(table.contains("\nsuspect invalid_token receipts (not acted on: the misconfiguration guard): 0\n"))
    }

    @Test func theHTMLEscapesReceiptTextAndCarriesTheNumbers() {
        var statistics = statistics()
        statistics.add(ReceiptStatisticsTests.receipt("delivered", type: "<script>alert(1)</script>"))
        let html = StatisticsHTML.render(statistics, title: "t")
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;"))
        #expect(html.contains(#"data-metric="total">8<"#))
        #expect(html.contains(#"data-metric="byStatus.delivered">4<"#))
        #expect(html.components(separatedBy: "<svg").count == 4)
    }
}
