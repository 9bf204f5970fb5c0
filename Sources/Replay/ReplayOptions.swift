import Essentials
import PushPipeline
public import TopicWindow

/// What `push-worker replay` was asked to do, from its command line.
public struct ReplayOptions: Sendable {
    public var topic: String
    public var from: TopicPosition = .beginning
    public var to: TopicPosition = .end
    public var partitions: [Int32]?
    public var runId: String
    /// At most this many device sends a second, evenly spaced.
    public var sendsPerSecond: Int?
    /// Events created longer ago than this are not sent (`expired`).
    public var maxAge: Duration?
    public var skipDelivered = false
    public var dryRun = false
    public var json = false

    public init(topic: String, runId: String) {
        self.topic = topic
        self.runId = runId
    }

    /// The run id of a run started at `nowMillis` without `--run-id`: `replay-20261130T100000Z-3f9a`, when it
    /// started and four random hex digits.
    public static func generatedRunId(nowMillis: Int64) -> String {
        let time = RFC3339.format(epochMillis: nowMillis).prefix(19).filter { $0 != "-" && $0 != ":" }
        return "replay-\(time)Z-" + String(UInt16.random(in: 0...UInt16.max), radix: 16)
    }

    /// How far before `--from TIME` the receipts are read for `--skip-delivered`: a receipt is written after its
    /// event, so receipts of the window's events start at most this much before its first record.
    public static let receiptsMargin: Duration = .seconds(3600)
}
