import Essentials
import PushCore

/// `receipts stats --html FILE`: a self-contained page (no script, no network; charts as inline SVG) with
/// the per-minute series, the status mix per platform and the latency histogram. Every number a test or a
/// reader may want to check stands in an element with a `data-metric` attribute, formatted as in the JSON.
/// Pure.
public enum StatisticsHTML {
    /// The colours of the statuses in the charts, in the receipts contract's order.
    static let statusColours = [
        "delivered": "#2e7d32", "invalid_token": "#ef6c00", "rejected": "#c62828", "expired": "#6d4c41",
        "skipped": "#9e9e9e", "dead_lettered": "#6a1b9a",
    ]

    public static func render(_ statistics: ReceiptStatistics, title: String) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <title>\(escape(title))</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}
            table{border-collapse:collapse}td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:right}
            td:first-child,th:first-child{text-align:left}.summary span{margin-right:24px}svg text{font-size:11px}
            </style></head><body>
            <h1>\(escape(title))</h1>

            """
        html += summary(statistics)
        html += "<h2>Receipts and delivery rate per minute</h2>\n" + seriesChart(statistics)
        html += "<h2>Status mix per platform</h2>\n" + platformChart(statistics)
        html += "<h2>Send latency (ms)</h2>\n" + latencyChart(statistics)
        html += "<h2>By status</h2>\n" + statusTable(statistics)
        html += "<h2>By platform</h2>\n" + crossTable(statistics.byPlatform, field: "platform", statistics)
        html += "<h2>By type</h2>\n" + crossTable(statistics.byType, field: "type", statistics)
        html += "</body></html>\n"
        return html
    }

    private static func summary(_ statistics: ReceiptStatistics) -> String {
        let latency = statistics.latency
        func item(_ label: String, _ metric: String, _ value: String) -> String {
            "<span>\(label) <b data-metric=\"\(metric)\">\(escape(value))</b></span>"
        }
        let window =
            if let first = statistics.firstMillis, let last = statistics.lastMillis {
                RFC3339.format(epochMillis: first) + " … " + RFC3339.format(epochMillis: last)
            } else { "-" }
        return "<p class=\"summary\">"
            + [
                item("receipts", "total", String(statistics.total)),
                item("copies dropped", "copies.dropped", String(statistics.copiesDropped)),
                item("delivery rate", "deliveryRate", number(statistics.deliveryRate, 6)),
                item("p50", "latencyMs.p50", number(latency.quantile(0.5), 3)),
                item("p95", "latencyMs.p95", number(latency.quantile(0.95), 3)),
                item("p99", "latencyMs.p99", number(latency.quantile(0.99), 3)),
                item("window", "window", window),
            ].joined() + "</p>\n<p>" + escape(StatisticsTable.copies(statistics)) + "</p>\n"
    }

    private static func seriesChart(_ statistics: ReceiptStatistics) -> String {
        let minutes = statistics.minutes.sorted { $0.key < $1.key }
        guard !minutes.isEmpty else { return "<p>No receipt has a time.</p>\n" }
        let (width, height, left, bottom) = (760.0, 220.0, 48.0, 24.0)
        let plotWidth = width - left - 48
        let plotHeight = height - bottom - 10
        let highest = Double(minutes.map(\.value.receipts).max() ?? 1)
        let step = plotWidth / Double(minutes.count)
        var svg = svgOpen(width, height, label: "receipts and delivery rate per minute")
        var ratePoints: [String] = []
        for (index, (start, minute)) in minutes.enumerated() {
            let barHeight = plotHeight * Double(minute.receipts) / highest
            let x = left + Double(index) * step
            svg +=
                "<rect x=\"\(f(x))\" y=\"\(f(10 + plotHeight - barHeight))\" width=\"\(f(max(step - 1, 1)))\" "
                + "height=\"\(f(barHeight))\" fill=\"#90caf9\"><title>\(RFC3339.format(epochMillis: start)): "
                + "\(minute.receipts) receipts, delivery rate \(number(minute.deliveryRate, 6))</title></rect>"
            if let rate = minute.deliveryRate {
                ratePoints.append("\(f(x + step / 2)),\(f(10 + plotHeight * (1 - rate)))")
            }
        }
        svg +=
            "<polyline points=\"\(ratePoints.joined(separator: " "))\" fill=\"none\" stroke=\"#2e7d32\" "
            + "stroke-width=\"2\"/>"
        svg += axisLabel(x: left - 6, y: 14, "\(Int(highest))", anchor: "end")
        svg += axisLabel(x: left - 6, y: 10 + plotHeight, "0", anchor: "end")
        svg += axisLabel(x: width - 44, y: 14, "100 %", anchor: "start")
        svg += axisLabel(x: left, y: height - 6, RFC3339.format(epochMillis: minutes[0].key), anchor: "start")
        svg += axisLabel(
            x: left + plotWidth, y: height - 6, RFC3339.format(epochMillis: minutes[minutes.count - 1].key),
            anchor: "end")
        return svg + "</svg>\n<p>Bars: receipts per minute (left axis); line: delivery rate (right axis).</p>\n"
    }

    private static func platformChart(_ statistics: ReceiptStatistics) -> String {
        let platforms = statistics.byPlatform.keys.sorted()
        guard !platforms.isEmpty else { return "<p>No receipts.</p>\n" }
        let statuses = StatisticsRows.statuses(statistics)
        let (width, rowHeight, left) = (760.0, 26.0, 90.0)
        let height = rowHeight * Double(platforms.count) + 30
        var svg = svgOpen(width, height, label: "status mix per platform")
        for (row, platform) in platforms.enumerated() {
            let counts = statistics.byPlatform[platform] ?? [:]
            let total = Double(counts.values.reduce(0, +))
            let y = Double(row) * rowHeight + 4
            svg += axisLabel(x: left - 6, y: y + 15, platform, anchor: "end")
            var x = left
            for status in statuses {
                let count = counts[status] ?? 0
                guard count > 0, total > 0 else { continue }
                let segment = (width - left - 10) * Double(count) / total
                svg +=
                    "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(segment))\" height=\"20\" "
                    + "fill=\"\(statusColours[status] ?? "#607d8b")\"><title>\(escape(platform)) "
                    + "\(escape(status)): \(count)</title></rect>"
                x += segment
            }
        }
        var legendX = left
        for status in statuses {
            svg +=
                "<rect x=\"\(f(legendX))\" y=\"\(f(height - 20))\" width=\"10\" height=\"10\" "
                + "fill=\"\(statusColours[status] ?? "#607d8b")\"/>"
            svg += axisLabel(x: legendX + 14, y: height - 11, status, anchor: "start")
            legendX += 24 + Double(status.count) * 7
        }
        return svg + "</svg>\n"
    }

    private static func latencyChart(_ statistics: ReceiptStatistics) -> String {
        let bins = LatencyBins.make(statistics.latency, maximumBins: 40)
        guard !bins.isEmpty else { return "<p>No send latency recorded.</p>\n" }
        let (width, height, left, bottom) = (760.0, 200.0, 48.0, 24.0)
        let plotWidth = width - left - 10
        let plotHeight = height - bottom - 10
        let highest = Double(bins.map(\.count).max() ?? 1)
        let step = plotWidth / Double(bins.count)
        var svg = svgOpen(width, height, label: "send latency histogram")
        for (index, bin) in bins.enumerated() {
            let barHeight = plotHeight * Double(bin.count) / highest
            svg +=
                "<rect x=\"\(f(left + Double(index) * step))\" y=\"\(f(10 + plotHeight - barHeight))\" "
                + "width=\"\(f(max(step - 1, 1)))\" height=\"\(f(barHeight))\" fill=\"#7e57c2\"><title>"
                + "\(number(bin.lower, 3))–\(number(bin.upper, 3)) ms: \(bin.count)</title></rect>"
        }
        svg += axisLabel(x: left, y: height - 6, number(bins[0].lower, 1) + " ms", anchor: "start")
        svg += axisLabel(
            x: left + plotWidth, y: height - 6, number(bins[bins.count - 1].upper, 1) + " ms", anchor: "end")
        svg += axisLabel(x: left - 6, y: 14, "\(Int(highest))", anchor: "end")
        return svg + "</svg>\n<p>Logarithmic latency bins; bar height: sends.</p>\n"
    }

    private static func statusTable(_ statistics: ReceiptStatistics) -> String {
        var html = "<table><tr><th>status</th><th>receipts</th></tr>"
        for status in StatisticsRows.statuses(statistics) {
            html +=
                "<tr><td>\(escape(status))</td><td data-metric=\"byStatus.\(escape(status))\">"
                + "\(statistics.byStatus[status] ?? 0)</td></tr>"
        }
        return html + "</table>\n"
    }

    private static func crossTable(
        _ counts: [String: [String: Int]], field: String, _ statistics: ReceiptStatistics
    ) -> String {
        let statuses = StatisticsRows.statuses(statistics)
        var html = "<table><tr><th>\(field)</th>" + statuses.map { "<th>\(escape($0))</th>" }.joined() + "</tr>"
        for key in counts.keys.sorted() {
            html += "<tr><td>\(escape(key))</td>"
            for status in statuses {
                html +=
                    "<td data-metric=\"\(field).\(escape(key)).\(escape(status))\">\(counts[key]?[status] ?? 0)</td>"
            }
            html += "</tr>"
        }
        return html + "</table>\n"
    }

    private static func svgOpen(_ width: Double, _ height: Double, label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"\(label)\" width=\"\(f(width))\" "
            + "height=\"\(f(height))\" viewBox=\"0 0 \(f(width)) \(f(height))\">"
    }

    private static func axisLabel(x: Double, y: Double, _ text: String, anchor: String) -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\" fill=\"#555\">\(escape(text))</text>"
    }

    private static func number(_ value: Double?, _ fractionDigits: Int) -> String {
        value.map { DecimalText.format($0, fractionDigits: fractionDigits) } ?? "-"
    }

    private static func f(_ value: Double) -> String {
        DecimalText.format(value, fractionDigits: 1)
    }

    /// `text` safe inside HTML text and double-quoted attributes.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
