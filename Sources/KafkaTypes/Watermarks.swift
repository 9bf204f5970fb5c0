/// The offsets bounding a partition: the oldest record still kept and the next offset to be written.
public struct Watermarks: Sendable, Equatable {
    /// The offset of the oldest record the broker still has.
    public let low: Int64
    /// The offset the next record written will get (one past the newest).
    public let high: Int64

    public init(low: Int64, high: Int64) {
        self.low = low
        self.high = high
    }
}
