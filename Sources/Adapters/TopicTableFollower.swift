import Kafka
import KafkaTypes
import TopicWindow

/// Reads a topic into a table from where the table left it (its beginning for a table that holds nothing), then
/// follows it while the worker runs: the invalid-token table, the device registry, the client settings (every pod
/// keeps the whole table), or chosen partitions of the registry's topics (`AssignedRegistry`).
struct TopicTableFollower: Sendable {
    let configuration: KafkaConfiguration
    let topic: String
    /// The partitions to follow; `nil` for all of the topic's.
    var partitions: [Int32]? = nil
    /// The next offset to read per partition, asked at each (re)connection; partitions it leaves out are read from
    /// their beginning.
    var start: @Sendable () -> [Int32: Int64] = { [:] }
    /// Called once the topic has been read up to where it ended at the start (again after a reconnection).
    let caughtUp: @Sendable () -> Void
    /// How many records of the start's window are still to read, after each batch until caught up.
    let remaining: @Sendable (Int64) -> Void
    /// Applies a batch; a failure (a store that cannot write) ends this connection, to be retried from `start`.
    let apply: @Sendable ([KafkaRecord]) throws -> Void

    /// Follows the topic until the task is cancelled. A Kafka failure (a missing topic, a broker away) or a failure
    /// to apply is retried every `retryInterval`, told to `onFailure` each time.
    func run(retryInterval: Duration = .seconds(5), onFailure: @Sendable (String) -> Void) async {
        while !Task.isCancelled {
            do {
                let reader = try TopicWindowReader(configuration: configuration, topic: topic)
                do {
                    try await follow(reader)
                } catch {
                    onFailure("\(error)")
                }
                await reader.close()
            } catch {
                onFailure("\(error)")
            }
            try? await Task.sleep(for: retryInterval)
        }
    }

    private func follow(_ reader: TopicWindowReader) async throws {
        let windows = try await reader.plan(from: .offsets(start()), to: .end, partitions: partitions)
        var next = Dictionary(uniqueKeysWithValues: windows.map { ($0.partition, $0.start) })
        let ends = Dictionary(uniqueKeysWithValues: windows.map { ($0.partition, $0.end) })
        var caughtUpOnce = false
        let caughtUp = caughtUp
        remaining(windows.reduce(0) { $0 &+ max(0, $1.count) })
        try await reader.follow(windows, caughtUp: caughtUp) { records in
            try apply(records)
            guard !caughtUpOnce else { return }
            for record in records { next[record.partition] = record.nextOffset }
            let left = ends.reduce(Int64(0)) { total, entry in
                total &+ max(0, entry.value - (next[entry.key] ?? entry.value))
            }
            remaining(left)
            caughtUpOnce = left == 0
        }
    }
}
