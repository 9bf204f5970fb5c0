import Essentials
import Foundation
import PushCore
import TestSupport

/// Receipts drawn from a seed, written as the worker writes them, with their expected statistics counted
/// here, independently of the code under test. Every `copyEvery`-th receipt is written once more after all the
/// others, in the same partition (as a worker taking over uncommitted sends writes it: same receiptId, a later
/// `sentAt`, another latency and worker); the statistics count each receiptId once.
struct GeneratedReceipts {
    static let start: Int64 = 1_795_953_600_000  // 2026-11-29T12:00:00Z
    /// The partitions the receipts are spread over (receipt `i` and its copy: partition `i % partitions`).
    static let partitions = 3

    /// The distinct receipts, in the order written.
    var lines: [String] = []
    /// Every record in the order written, copies last: (partition, offset within it, receipt JSON).
    var records: [(partition: Int32, offset: Int64, line: String)] = []
    var copies = 0
    var byStatus: [String: Int] = [:]
    var byPlatform: [String: [String: Int]] = [:]
    var byType: [String: [String: Int]] = [:]
    var latencies: [Double] = []
    var perRun: [String: Int] = [:]
    var attempts: [String: Int] = [:]
    /// Receipts marked `"suspect": true`: every third `invalid_token` one.
    var suspect = 0

    init(count: Int, seed: UInt64, copyEvery: Int = 20) {
        var random = SeededGenerator(seed: seed)
        var later: [(Int, String)] = []
        let statuses = [
            ("delivered", 70), ("skipped", 10), ("invalid_token", 5), ("rejected", 5), ("expired", 5),
            ("dead_lettered", 5),
        ]
        for index in 0..<count {
            var pick = Int.random(in: 0..<100, using: &random)
            let status =
                statuses.first { status in
                    defer { pick -= status.1 }
                    return pick < status.1
                }?.0 ?? "delivered"
            let platform = ["apns", "apns-voip", "fcm"].randomElement(using: &random) ?? "fcm"
            let type = ["text", "image", "video", "call"].randomElement(using: &random) ?? "text"
            let sent = status == "skipped" || status == "expired"
            let latency = sent ? nil : exp(Double.random(in: log(0.5)...log(5_000), using: &random))
            let tries = sent ? 0 : Int.random(in: 1...4, using: &random)
            let run = Int.random(in: 0..<10, using: &random) == 0 ? "run-a" : nil
            let sentAt = Self.start + Int64(index) * 97
            func receipt(sentAt: Int64, latency: Double?, worker: String) -> String {
                var writer = JSONWriter()
                writer.beginObject()
                writer.field("receiptId", "receipt-\(index)")
                writer.field("messageId", "m-\(index)")
                writer.field("room", "r-\(index % 7)")
                writer.field("type", type)
                writer.field("userId", "u-\(index % 13)")
                writer.field("platform", platform)
                writer.field("tokenHash", "sha256:" + String(repeating: "0", count: 64))
                writer.field("status", status)
                writer.field("reason", status == "delivered" ? .null : .string("reason-\(index % 3)"))
                writer.field("attempts", tries)
                if status == "invalid_token" && index % 2 == 0 { writer.field("token", "raw-token-\(index)") }
                if status == "invalid_token" && index % 3 == 0 {
                    writer.key("suspect")
                    writer.bool(true)
                }
                writer.field("sentAt", RFC3339.format(epochMillis: sentAt))
                writer.field("latencyMs", latency.map { .number(DecimalText.format($0)) } ?? .null)
                writer.field("replayRunId", run.map(JSONValue.string) ?? .null)
                writer.field("worker", worker)
                writer.endObject()
                return String(decoding: writer.bytes, as: UTF8.self)
            }
            lines.append(receipt(sentAt: sentAt, latency: latency, worker: "w-\(index % 2)"))
            if index % copyEvery == 0 {
                later.append((index, receipt(sentAt: sentAt + 300_000, latency: latency.map { $0 * 2 }, worker: "w-2")))
            }
            byStatus[status, default: 0] += 1
            if status == "invalid_token" && index % 3 == 0 { suspect += 1 }
            byPlatform[platform, default: [:]][status, default: 0] += 1
            byType[type, default: [:]][status, default: 0] += 1
            if let latency { latencies.append(Double(DecimalText.format(latency)) ?? latency) }
            perRun[run ?? "-", default: 0] += 1
            attempts[String(tries), default: 0] += 1
        }
        place(later)
    }

    /// The records of `lines` then `copies`, each in partition `index % partitions` at its next offset.
    private mutating func place(_ copiesWritten: [(Int, String)]) {
        var next = [Int64](repeating: 0, count: Self.partitions)
        for (index, line) in lines.enumerated().map({ ($0.offset, $0.element) }) + copiesWritten {
            let partition = index % Self.partitions
            records.append((Int32(partition), next[partition], line))
            next[partition] += 1
        }
        copies = copiesWritten.count
    }

    var deliveryRate: Double {
        Double(byStatus["delivered"] ?? 0) / Double(lines.count - (byStatus["skipped"] ?? 0))
    }

    /// ClickHouse's `quantileExact`: the value at index ⌊q·n⌋ of the sorted values.
    func exactLatency(_ q: Double) -> Double {
        let sorted = latencies.sorted()
        return sorted[min(Int(q * Double(sorted.count)), sorted.count - 1)]
    }
}
