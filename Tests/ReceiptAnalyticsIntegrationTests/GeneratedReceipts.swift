import Essentials
import Foundation
import PushCore
import TestSupport

/// Receipts drawn from a seed, written as the worker writes them, with their expected statistics counted
/// here, independently of the code under test.
struct GeneratedReceipts {
    static let start: Int64 = 1_795_953_600_000  // 2026-11-29T12:00:00Z

    var lines: [String] = []
    var byStatus: [String: Int] = [:]
    var byPlatform: [String: [String: Int]] = [:]
    var byType: [String: [String: Int]] = [:]
    var latencies: [Double] = []
    var perRun: [String: Int] = [:]
    var attempts: [String: Int] = [:]

    init(count: Int, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
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
            var writer = JSONWriter()
            writer.beginObject()
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
            writer.field("sentAt", RFC3339.format(epochMillis: sentAt))
            writer.field("latencyMs", latency.map { .number(DecimalText.format($0)) } ?? .null)
            writer.field("replayRunId", run.map(JSONValue.string) ?? .null)
            writer.field("worker", "w-\(index % 2)")
            writer.endObject()
            lines.append(String(decoding: writer.bytes, as: UTF8.self))
            byStatus[status, default: 0] += 1
            byPlatform[platform, default: [:]][status, default: 0] += 1
            byType[type, default: [:]][status, default: 0] += 1
            if let latency { latencies.append(Double(DecimalText.format(latency)) ?? latency) }
            perRun[run ?? "-", default: 0] += 1
            attempts[String(tries), default: 0] += 1
        }
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
