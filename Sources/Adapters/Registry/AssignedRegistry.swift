package import Configuration
package import DeviceRegistry
package import Essentials
package import Kafka
import KafkaTypes
package import Lifecycle
package import Observability
import PipelineMetrics
package import PushCore
import Synchronization

/// The registry partitions of the fan-out partitions a pod is assigned (`PUSH_REGISTRY_SCOPE=assigned`): for each
/// assigned partition p, its own tables restored from partition p of `push.devices` and `push.clients` and then
/// followed, apart from every other partition; a record of a client that `ClientPartitioner` places elsewhere is
/// ignored as `foreign`.
///
/// The stage that consumes the fan-out calls `assign` and `revoke` from its rebalances, hands out none of p's records
/// before `directory(ofPartition: p)` answers (`GatedRecordSource`), and resolves them through it
/// (`AssignedDirectory`); `restored(p)` waits for that point (tests). As a `Service` it holds the
/// partitions until its shutdown, then stops following every one. As `TokenHolders` it finds the keys a dead token's
/// tombstones delete, and it counts the unsubscribe requests (`unsubscribes`).
package final class AssignedRegistry: Service, TokenHolders, Sendable {
    private let configuration: KafkaConfiguration
    private let registry: RegistryConfiguration
    private let partitions: Int
    private let logger: Logger
    private let recordLog: RegistryRecordLog
    private let stores: PartitionStores
    /// The dead tokens' unsubscribe requests, routed from here or applied here.
    package let unsubscribes = UnsubscribeRequestCounts()
    private let state = Mutex(State())

    private struct State {
        var held: [Int32: Held] = [:]
        /// The followers of revoked partitions that have not stopped yet: a partition assigned again waits for its
        /// old follower before it opens its store again.
        var stopping: [Int32: (id: Int, follower: Task<Void, Never>?)] = [:]
        var waiters: [Int32: [Int: CheckedContinuation<Void, Never>]] = [:]
        var nextID = 0
        /// The records the partitions no longer held ignored, per topic and reason.
        var ignoredBefore: [RegistryTables.IgnoredKey: Int] = [:]
        /// The connections to each topic that failed, every partition's.
        var followFailures: [RegistryTables.Topic: Int] = [:]
        /// The partitions held when the shutdown came: their copies stay for the restart, beside the retained ones.
        var heldAtShutdown: Set<Int32> = []
    }

    private struct Held {
        /// Tells this holding from a later one of the same partition.
        let id: Int
        var follower: Task<Void, Never>?
        /// Set once the store is open.
        var tables: RegistryTables?
        var isRestored = false
    }

    /// The registry of `registry`'s two topics, each of `partitions` partitions (their co-partitioned count), read
    /// with `configuration`'s brokers, each partition kept as `registry.store` says (an LMDB store: one copy per
    /// partition in its directory, `registry.retainedCopies` of them kept after their partition is revoked); the
    /// ignored records' warnings are rate-limited on `clock`.
    package init(
        configuration: KafkaConfiguration, registry: RegistryConfiguration, partitions: Int, logger: Logger,
        clock: any WallClock
    ) {
        self.configuration = configuration
        self.registry = registry
        self.partitions = partitions
        self.logger = logger
        recordLog = RegistryRecordLog(logger: logger, clock: clock)
        stores = PartitionStores(registry: registry, logger: logger)
    }

    /// Starts restoring each of `assigned` not held yet; partitions already held are kept as they are.
    package func assign(_ assigned: Set<Int32>) {
        state.withLock { state in
            for partition in assigned.sorted() where state.held[partition] == nil {
                state.nextID += 1
                let id = state.nextID
                let previous = state.stopping.removeValue(forKey: partition)
                state.held[partition] = Held(id: id)
                state.held[partition]?.follower = Task { [self] in
                    await previous?.follower?.value
                    await hold(partition, id: id)
                }
            }
        }
    }

    /// Stops following each of `revoked`; its directory is gone at once, and whoever waits for its restoration
    /// returns.
    package func revoke(_ revoked: Set<Int32>) {
        let waiters = state.withLock { state in
            var waiters: [CheckedContinuation<Void, Never>] = []
            for partition in revoked {
                guard let held = state.held.removeValue(forKey: partition) else { continue }
                held.follower?.cancel()
                state.stopping[partition] = (held.id, held.follower)
                if let tables = held.tables { state.ignoredBefore.merge(tables.ignored, uniquingKeysWith: +) }
                waiters += state.waiters.removeValue(forKey: partition)?.values.map { $0 } ?? []
            }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the follower of a revoked `partition` has stopped and closed its store (at once when none runs).
    package func stopped(_ partition: Int32) async {
        await state.withLock { $0.stopping[partition]?.follower }?.value
    }

    /// Returns once `partition` is restored: both topics' partition read up to where it ended when its follower
    /// connected. Returns at once when it is restored or not assigned, and when it is revoked or the calling task is
    /// cancelled while waiting (`directory(ofPartition:)` then answers `nil`).
    package func restored(_ partition: Int32) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state in
                    guard let held = state.held[partition], !held.isRestored, !Task.isCancelled else { return false }
                    state.waiters[partition, default: [:]][id] = waiter
                    return true
                }
                if !waits { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters[partition]?.removeValue(forKey: id) }?.resume()
        }
    }

    /// The devices and settings of `partition`'s clients; `nil` when the partition is not held or not restored yet.
    package func directory(ofPartition partition: Int32) -> (any DeviceDirectory)? {
        state.withLock { state in
            guard let held = state.held[partition], held.isRestored else { return nil }
            return held.tables?.store
        }
    }

    /// The keys of `clientID`'s devices that hold `token` on `platform` in the restored partitions, in any app: a
    /// dead token found by the fan-out stage of this pod is in a partition it holds (the client's in another app only
    /// when that app's client key falls in a partition held too). One found by the input stage, on a retry record, may
    /// be of a client whose partition another pod holds: that pod deletes it (`DeadTokenRoute`).
    package func keys(ofClient clientID: String, holding token: String, on platform: Platform) -> [DeviceKey] {
        let stores = state.withLock { state in state.held.values.filter(\.isRestored).compactMap { $0.tables?.store } }
        return stores.flatMap { $0.keys(ofClient: clientID, holding: token, on: platform) }
    }

    /// The token holders of `partition`; `nil` when it is not held or not restored yet.
    package func holders(ofPartition partition: Int32) -> (any TokenHolders)? {
        state.withLock { state in
            guard let held = state.held[partition], held.isRestored else { return nil }
            return held.tables?.store
        }
    }

    /// The partitions held, which of them are restored, and the records the others still have to read.
    package var progress: RegistryRestoration {
        state.withLock { state in
            let restoring = state.held.filter { !$0.value.isRestored }
            return RegistryRestoration(
                restored: Set(state.held.filter(\.value.isRestored).keys), restoring: Set(restoring.keys),
                remaining: restoring.values.reduce(0) { total, held in
                    RegistryTables.Topic.allCases.reduce(total) { $0 + (held.tables?.lag(of: $1) ?? 0) }
                })
        }
    }

    /// The records ignored since the start, per topic and reason (`foreign` among them), held partitions or not.
    package var ignored: [RegistryTables.IgnoredKey: Int] {
        state.withLock { state in
            state.held.values.reduce(into: state.ignoredBefore) { total, held in
                total.merge(held.tables?.ignored ?? [:], uniquingKeysWith: +)
            }
        }
    }

    /// The connections to `topic` that failed and were retried since the start, every partition's.
    package func followFailures(of topic: RegistryTables.Topic) -> Int {
        state.withLock { $0.followFailures[topic] ?? 0 }
    }

    /// What the held partitions' stores hold, added up.
    package var statistics: RegistryStatistics {
        let stores = state.withLock { $0.held.values.compactMap { $0.tables?.store } }
        return stores.reduce(into: RegistryStatistics()) { total, store in
            let statistics = store.statistics
            total.devices += statistics.devices
            total.clients += statistics.clients
            total.settings += statistics.settings
            total.bytes += statistics.bytes
        }
    }

    /// The damaged partition copies moved aside since the start, per reason.
    package var rebuilds: [String: Int] { stores.rebuildsByReason }

    package func run(shutdown: GracefulShutdown) async {
        await shutdown.wait()
        let (held, followers) = state.withLock { state in
            state.heldAtShutdown = Set(state.held.keys)
            return (
                state.heldAtShutdown,
                state.stopping.values.compactMap(\.follower) + state.held.values.compactMap(\.follower)
            )
        }
        revoke(held)
        for follower in followers { await follower.value }
    }

    /// Opens `partition`'s store, follows both topics' partition into it until cancelled, then closes it and removes
    /// the copies beyond the retained ones (never one of a partition held, stopping, or held when the shutdown came).
    private func hold(_ partition: Int32, id: Int) async {
        let started = ContinuousClock.now
        let held = RegistryPartition(partition, of: partitions)
        let opened = stores.open(held)
        let tables = RegistryTables(store: opened.store, partition: held)
        let current = state.withLock { state in
            guard state.held[partition]?.id == id else { return false }
            state.held[partition]?.tables = tables
            return true
        }
        if current {
            logger.info(
                "registry partition restoring",
                metadata: ["kafka.partition": .init(Int(partition)), "registry.resumed": .bool(opened.resumed)])
            await follow(partition, into: tables, id: id, started: started)
        }
        opened.close()
        // This holding stays `stopping` until its prune is done: `stopped` and a new holding of the partition wait.
        stores.prune { [self] in
            let kept = state.withLock { state in
                let others = state.stopping.filter { $0.key != partition || $0.value.id != id }
                return Set(state.held.keys).union(others.keys).union(state.heldAtShutdown)
            }
            return Set(kept.map { RegistryPartition($0, of: partitions) })
        }
        state.withLock { state in
            if state.stopping[partition]?.id == id { state.stopping[partition] = nil }
        }
    }

    /// Follows `partition` of both topics into `tables` until cancelled.
    private func follow(_ partition: Int32, into tables: RegistryTables, id: Int, started: ContinuousClock.Instant)
        async
    {
        await withTaskGroup(of: Void.self) { group in
            for (topic, name) in [
                (RegistryTables.Topic.devices, registry.devicesTopic), (.clients, registry.clientsTopic),
            ] {
                let follower = TopicTableFollower(
                    configuration: configuration, topic: name, partitions: [partition],
                    start: { tables.store.offsets(of: name) },
                    caughtUp: { [self] in
                        if let error = tables.markLoaded(topic) {
                            logger.warning(
                                "cannot finish the registry partition's load",
                                metadata: [
                                    "kafka.partition": .init(Int(partition)), "error": .string(error.description),
                                ])
                        }
                        guard tables.isLoaded else { return }
                        markRestored(partition, id: id, tables: tables, after: ContinuousClock.now - started)
                    },
                    remaining: { tables.setLag($0, of: topic) },
                    apply: { [recordLog] records in try tables.apply(records, of: topic, named: name, log: recordLog) })
                group.addTask { [self] in
                    await follower.run { error in
                        state.withLock { $0.followFailures[topic, default: 0] += 1 }
                        logger.warning(
                            "cannot follow the registry topic",
                            metadata: [
                                "kafka.topic": .string(name), "kafka.partition": .init(Int(partition)),
                                "error": .string(error),
                            ])
                    }
                }
            }
        }
    }

    /// Marks `partition` restored (the first time its tables are loaded) and wakes whoever waits for it.
    private func markRestored(_ partition: Int32, id: Int, tables: RegistryTables, after elapsed: Duration) {
        let waiters: [CheckedContinuation<Void, Never>]? = state.withLock { state in
            guard let held = state.held[partition], held.id == id, !held.isRestored else { return nil }
            state.held[partition]?.isRestored = true
            return state.waiters.removeValue(forKey: partition).map { Array($0.values) } ?? []
        }
        guard let waiters else { return }
        let records = RegistryTables.Topic.allCases.reduce(0) { $0 + tables.recordsRead(of: $1) }
        logger.info(
            "registry partition restored",
            metadata: [
                "kafka.partition": .init(Int(partition)), "registry.records": .init(records),
                "registry.seconds": .double(elapsed.fractionalSeconds),
            ])
        for waiter in waiters { waiter.resume() }
    }

    /// The records of `partition` read since it was assigned, per topic; `nil` when it is not held (tests and
    /// benchmarks: a resumed copy reads only what is newer than what it holds).
    package func recordsRead(ofPartition partition: Int32) -> [RegistryTables.Topic: Int]? {
        guard let tables = state.withLock({ $0.held[partition]?.tables }) else { return nil }
        return Dictionary(uniqueKeysWithValues: RegistryTables.Topic.allCases.map { ($0, tables.recordsRead(of: $0)) })
    }
}

/// Which registry partitions a pod holds: restored, or still restoring.
package struct RegistryRestoration: Sendable, Equatable {
    package var restored: Set<Int32>
    package var restoring: Set<Int32>
    /// The records the restoring partitions still have to read (as far as their followers know).
    package var remaining: Int64

    package init(restored: Set<Int32>, restoring: Set<Int32>, remaining: Int64 = 0) {
        self.restored = restored
        self.restoring = restoring
        self.remaining = remaining
    }

    /// Every partition held.
    package var held: Set<Int32> { restored.union(restoring) }

    /// The readiness check `registry.partitions`: a warning (it never fails the probe) while any partition restores.
    package var health: HealthCheckResult {
        guard restoring.isEmpty else {
            return .warn("restoring \(restoring.count) of \(held.count) registry partitions")
        }
        return .pass("\(restored.count) registry partitions restored")
    }
}
