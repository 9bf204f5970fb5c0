import Essentials
import Kafka
import KafkaTypes
import Synchronization
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

    /// The waits between connections: up to 1 s after a first failure, doubling to up to 60 s (full jitter).
    static let retryBackoff = Backoff(base: .seconds(1), cap: .seconds(60))

    /// Follows the topic until the task is cancelled. A Kafka failure (a missing topic, a broker away) or a failure
    /// to apply ends the connection, is told to `onFailure`, and is retried after `backoff`'s wait for the failures in
    /// a row (`FollowRetries`).
    func run(backoff: Backoff = Self.retryBackoff, onFailure: @Sendable (String) -> Void) async {
        var retries = FollowRetries(backoff: backoff)
        var random = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            let reachedEnd = Mutex(false)
            do {
                let reader = try TopicWindowReader(configuration: configuration, topic: topic)
                do {
                    try await follow(reader) { reachedEnd.withLock { $0 = true } }
                } catch {
                    onFailure("\(error)")
                }
                await reader.close()
            } catch {
                onFailure("\(error)")
            }
            guard !Task.isCancelled else { return }
            try? await Task.sleep(
                for: retries.wait(afterConnectionThatCaughtUp: reachedEnd.withLock { $0 }, using: &random))
        }
    }

    private func follow(_ reader: TopicWindowReader, reachedEnd: @escaping @Sendable () -> Void) async throws {
        let windows = try await reader.plan(from: .offsets(start()), to: .end, partitions: partitions)
        var next = Dictionary(uniqueKeysWithValues: windows.map { ($0.partition, $0.start) })
        let ends = Dictionary(uniqueKeysWithValues: windows.map { ($0.partition, $0.end) })
        var caughtUpOnce = false
        let caughtUp = caughtUp
        let caughtUpHere: @Sendable () -> Void = {
            reachedEnd()
            caughtUp()
        }
        remaining(windows.reduce(0) { $0 &+ max(0, $1.count) })
        try await reader.follow(windows, caughtUp: caughtUpHere) { records in
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
