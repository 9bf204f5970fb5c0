import Kafka
import KafkaTypes

/// Where a window read stands: the next offset per partition, and the partitions not read to their end yet.
struct ReadState: Sendable {
    private(set) var windows: [Int32: PartitionWindow]
    private(set) var next: [Int32: Int64]
    private(set) var open: Set<Int32>
    private var lastRecord = ContinuousClock.now

    init(windows: [PartitionWindow]) {
        self.windows = Dictionary(uniqueKeysWithValues: windows.map { ($0.partition, $0) })
        next = Dictionary(uniqueKeysWithValues: windows.map { ($0.partition, $0.start) })
        open = Set(windows.filter { $0.count > 0 }.map(\.partition))
    }

    /// The records of `batch` inside their windows; advances the positions and closes the partitions whose
    /// window end is reached.
    mutating func take(_ batch: [KafkaRecord], topic: String) -> [KafkaRecord] {
        if !batch.isEmpty { lastRecord = .now }
        var inside: [KafkaRecord] = []
        inside.reserveCapacity(batch.count)
        for record in batch where record.topic == topic && open.contains(record.partition) {
            guard let window = windows[record.partition], record.offset < window.end else { continue }
            next[record.partition] = record.nextOffset
            if record.nextOffset >= window.end { open.remove(record.partition) }
            if window.contains(record) { inside.append(record) }
        }
        return inside
    }

    /// The open partitions to check for records gone from the broker, once no record came for `limit`.
    mutating func idle(for limit: Duration) -> [Int32] {
        guard !open.isEmpty, ContinuousClock.now - lastRecord > limit else { return [] }
        lastRecord = .now
        return open.sorted()
    }

    /// Ends every partition whose end the consumer reached (`ends`, see `KafkaConsumer.reachedEnds`) at or past
    /// its window's end: the window's last offsets may hold no record (a transaction marker, aborted records), so
    /// no record need reach the end.
    mutating func finish(reachedEnds ends: [Int32: Int64]) {
        for (partition, end) in ends where open.contains(partition) {
            guard let window = windows[partition], end >= window.end else { continue }
            open.remove(partition)
            next[partition] = window.end
        }
    }

    /// Ends `partition` when the broker's oldest record (`low`) is past its window's end.
    mutating func retire(_ partition: Int32, ifGoneBelow low: Int64) {
        guard let window = windows[partition], low >= window.end else { return }
        open.remove(partition)
        next[partition] = window.end
    }
}
