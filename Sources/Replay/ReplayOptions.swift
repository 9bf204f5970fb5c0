import PushPipeline
import TopicWindow
import Worker

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

    /// How far before `--from TIME` the receipts are read for `--skip-delivered`: a receipt is written after its
    /// event, so receipts of the window's events start at most this much before its first record.
    public static let receiptsMargin: Duration = .seconds(3600)
}
