import Essentials
import PushCore

/// `receipts stats --format json`: the statistics as one JSON object, keys sorted. Pure.
public enum StatisticsJSON {
    public static func render(_ statistics: ReceiptStatistics) -> String {
        var writer = JSONWriter(reservingCapacity: 4096)
        writer.beginObject()
        writer.field("total", statistics.total)
        writer.field("unreadable", statistics.unreadable)
        writer.field("filteredOut", statistics.filteredOut)
        writer.key("copies")
        writer.beginObject()
        writer.key("counted")
        writer.bool(statistics.countsCopies)
        writer.field("dropped", statistics.copiesDropped)
        writer.key("exact")
        writer.bool(statistics.copiesAreExact)
        writer.field("withoutReceiptId", statistics.withoutReceiptId)
        writer.endObject()
        writer.key("window")
        writer.beginObject()
        writer.optionalTime("first", statistics.firstMillis)
        writer.optionalTime("last", statistics.lastMillis)
        writer.endObject()
        writer.key("byStatus")
        writer.counts(statistics.byStatus)
        writer.field("suspect", statistics.suspect)
        writer.key("byPlatform")
        writer.nestedCounts(statistics.byPlatform)
        writer.key("byType")
        writer.nestedCounts(statistics.byType)
        writer.optionalNumber("deliveryRate", statistics.deliveryRate, fractionDigits: 6)
        writer.key("latencyMs")
        writer.beginObject()
        writer.field("count", Int(clamping: statistics.latency.count))
        for (name, q) in [("p50", 0.5), ("p95", 0.95), ("p99", 0.99)] {
            writer.optionalNumber(name, statistics.latency.quantile(q), fractionDigits: 3)
        }
        writer.optionalNumber("min", statistics.latency.minimum, fractionDigits: 3)
        writer.optionalNumber("max", statistics.latency.maximum, fractionDigits: 3)
        writer.endObject()
        writer.key("attempts")
        writer.counts(Dictionary(uniqueKeysWithValues: statistics.attempts.map { (String($0.key), $0.value) }))
        writer.key("topFailureReasons")
        writer.beginArray()
        for (reason, count) in statistics.topFailureReasons() {
            writer.beginObject()
            writer.field("status", reason.status)
            writer.field("reason", reason.reason)
            writer.field("count", count)
            writer.endObject()
        }
        writer.endArray()
        writer.key("perMinute")
        writer.beginArray()
        for (start, minute) in statistics.minutes.sorted(by: { $0.key < $1.key }) {
            writer.beginObject()
            writer.field("minute", RFC3339.format(epochMillis: start))
            writer.field("receipts", minute.receipts)
            writer.field("delivered", minute.delivered)
            writer.field("skipped", minute.skipped)
            writer.optionalNumber("deliveryRate", minute.deliveryRate, fractionDigits: 6)
            writer.endObject()
        }
        writer.endArray()
        writer.key("breakdown")
        writer.beginObject()
        writer.key("by")
        writer.strings(statistics.dimensions.map(\.rawValue))
        writer.key("rows")
        writer.beginArray()
        for (values, count) in StatisticsRows.breakdown(statistics) {
            writer.beginObject()
            for (dimension, value) in zip(statistics.dimensions, values) { writer.field(dimension.rawValue, value) }
            writer.field("count", count)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension JSONWriter {
    fileprivate mutating func counts(_ counts: [String: Int]) {
        beginObject()
        for key in counts.keys.sorted() { field(key, counts[key] ?? 0) }
        endObject()
    }

    fileprivate mutating func nestedCounts(_ counts: [String: [String: Int]]) {
        beginObject()
        for key in counts.keys.sorted() {
            self.key(key)
            self.counts(counts[key] ?? [:])
        }
        endObject()
    }

    fileprivate mutating func optionalNumber(_ name: String, _ value: Double?, fractionDigits: Int) {
        field(name, value.map { .number(DecimalText.format($0, fractionDigits: fractionDigits)) } ?? .null)
    }

    fileprivate mutating func optionalTime(_ name: String, _ millis: Int64?) {
        field(name, millis.map { .string(RFC3339.format(epochMillis: $0)) } ?? .null)
    }
}
