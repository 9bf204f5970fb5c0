import Essentials
import PushCore
import PushPipeline

/// What a replay did, for its progress line and its closing summary (text, or one JSON object). Pure.
public struct ReplaySummary: Sendable, Equatable {
    public var runId: String
    public var topic: String
    public var dryRun: Bool
    /// Records the window spans (an upper bound; what `records` counts up to).
    public var recordsInWindow: Int64 = 0
    /// Records read and planned.
    public var records = 0
    /// Records that were not events (counted, never dead-lettered again).
    public var undecodable = 0
    /// Device sends made (or, in a dry run, that would be made).
    public var sends = 0
    /// Receipts by status.
    public var statuses: [String: Int] = [:]
    /// Skipped device sends by reason.
    public var skipped: [String: Int] = [:]
    public var deadLetters = 0
    public var retriesHandedOff = 0
    public var durationSeconds = 0.0
    /// Per partition, where the replay stopped: the next offset to replay.
    public var stoppedAt: [Int32: Int64] = [:]
    /// Whether every partition reached the window's end.
    public var complete = false

    public init(runId: String, topic: String, dryRun: Bool) {
        self.runId = runId
        self.topic = topic
        self.dryRun = dryRun
    }

    /// The `--from` that replays what is left: `PARTITION:OFFSET,…` of where each partition stopped.
    public var resumeFrom: String {
        stoppedAt.keys.sorted().map { "\($0):\(stoppedAt[$0] ?? 0)" }.joined(separator: ",")
    }

    /// One progress line: records done / total, sends per second, outcomes so far, and the time left.
    public func progressLine(elapsedSeconds: Double) -> String {
        let rate = elapsedSeconds > 0 ? Double(sends) / elapsedSeconds : 0
        let recordRate = elapsedSeconds > 0 ? Double(records) / elapsedSeconds : 0
        let left = max(recordsInWindow - Int64(records), 0)
        let secondsLeft = recordRate > 0 ? (Double(left) / recordRate).rounded(.up) : .infinity
        // A window sized by the broker's watermarks can be absurd: beyond a year, no estimate (and no trap).
        let eta = secondsLeft < 31_536_000 ? "\(Int(secondsLeft)) s" : "-"
        let outcomes = statuses.keys.sorted().map { "\($0) \(statuses[$0] ?? 0)" }.joined(separator: ", ")
        return "replay \(runId): records \(records)/\(recordsInWindow), \(DecimalText.format(rate, fractionDigits: 1)) "
            + "sends/s, \(outcomes.isEmpty ? "no receipts yet" : outcomes), ETA \(eta)"
    }

    /// The closing summary for a person.
    public var text: String {
        var lines = [
            "replay \(runId) of \(topic)\(dryRun ? " (dry run: nothing sent, nothing written)" : ""): "
                + (complete ? "complete" : "stopped before the end"),
            "records: \(records) read, \(undecodable) not events (left alone)",
            "device sends: \(sends)\(dryRun ? " would be made" : "")",
        ]
        for (title, counts) in [("receipts", statuses), ("skipped", skipped)] where !counts.isEmpty {
            lines.append("\(title): " + counts.keys.sorted().map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: ", "))
        }
        lines.append("dead letters: \(deadLetters); retries handed off: \(retriesHandedOff)")
        lines.append("duration: \(DecimalText.format(durationSeconds, fractionDigits: 1)) s")
        lines.append("stopped at: \(resumeFrom.isEmpty ? "-" : resumeFrom)")
        if !complete { lines.append("resume with: --from \(resumeFrom)") }
        return lines.joined(separator: "\n")
    }

    /// The closing summary as one JSON object (`--format json`).
    public var json: String {
        var writer = JSONWriter(reservingCapacity: 1024)
        writer.beginObject()
        writer.field("runId", runId)
        writer.field("topic", topic)
        writer.field("dryRun", .bool(dryRun))
        writer.field("complete", .bool(complete))
        writer.field("records", records)
        writer.field("undecodable", undecodable)
        writer.field("sends", sends)
        for (name, counts) in [("statuses", statuses), ("skipped", skipped)] {
            writer.key(name)
            writer.beginObject()
            for key in counts.keys.sorted() { writer.field(key, counts[key] ?? 0) }
            writer.endObject()
        }
        writer.field("deadLetters", deadLetters)
        writer.field("retriesHandedOff", retriesHandedOff)
        writer.field("durationSeconds", .number(DecimalText.format(durationSeconds, fractionDigits: 3)))
        writer.key("stoppedAt")
        writer.beginObject()
        for partition in stoppedAt.keys.sorted() { writer.field(String(partition), Int(stoppedAt[partition] ?? 0)) }
        writer.endObject()
        writer.field("resumeFrom", resumeFrom)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
