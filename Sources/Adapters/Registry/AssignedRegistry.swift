import Configuration
import DeviceRegistry
import Essentials
import Kafka
import Lifecycle
import Observability
import PushCore
import Synchronization

/// The registry partitions of the fan-out partitions a pod is assigned (`PUSH_REGISTRY_SCOPE=assigned`): for each
/// assigned partition p, its own tables restored from partition p of `push.devices` and `push.clients` and then
/// followed, apart from every other partition; a record of a client that `ClientPartitioner` places elsewhere is
/// ignored as `foreign`.
///
/// The stage that consumes the fan-out calls `assign` and `revoke` from its rebalances, waits for `restored(p)` before
/// it plans p's records, and resolves them through `directory(ofPartition: p)`. As a `Service` it holds the
/// partitions until its shutdown, then stops following every one.
package final class AssignedRegistry: Service, Sendable {
    private let configuration: KafkaConfiguration
    private let registry: RegistryConfiguration
    private let partitions: Int
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var held: [Int32: Held] = [:]
        /// The followers of revoked partitions that have not stopped yet: a partition assigned again waits for its
        /// old follower before it opens its store again.
        var stopping: [Int32: Task<Void, Never>] = [:]
        var waiters: [Int32: [Int: CheckedContinuation<Void, Never>]] = [:]
        var nextWaiter = 0
        /// The records the partitions no longer held ignored, per topic and reason.
        var ignoredBefore: [RegistryTables.IgnoredKey: Int] = [:]
    }

    private struct Held {
        let tables: RegistryTables
        let follower: Task<Void, Never>
        var isRestored = false
    }

    /// The registry of `registry`'s two topics, each of `partitions` partitions (their co-partitioned count), read
    /// with `configuration`'s brokers.
    package init(
        configuration: KafkaConfiguration, registry: RegistryConfiguration, partitions: Int, logger: Logger
    ) {
        self.configuration = configuration
        self.registry = registry
        self.partitions = partitions
        self.logger = logger
    }

    /// Starts restoring each of `assigned` not held yet; partitions already held are kept as they are.
    package func assign(_ assigned: Set<Int32>) {
        state.withLock { state in
            for partition in assigned.sorted() where state.held[partition] == nil {
                let tables = RegistryTables(
                    store: MemoryDeviceStore(), partition: RegistryPartition(partition, of: partitions))
                let previous = state.stopping.removeValue(forKey: partition)
                let follower = Task { [self] in
                    await previous?.value
                    await follow(partition, into: tables)
                }
                state.held[partition] = Held(tables: tables, follower: follower)
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
                held.follower.cancel()
                state.ignoredBefore.merge(held.tables.ignored, uniquingKeysWith: +)
                state.stopping[partition] = held.follower
                waiters += state.waiters.removeValue(forKey: partition)?.values.map { $0 } ?? []
            }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once `partition` is restored: both topics' partition read up to where it ended when its follower
    /// connected. Returns at once when it is restored or not assigned, and when it is revoked or the calling task is
    /// cancelled while waiting (`directory(ofPartition:)` then answers `nil`).
    package func restored(_ partition: Int32) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
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
            return held.tables.store
        }
    }

    /// The partitions held, and which of them are restored.
    package var progress: RegistryRestoration {
        state.withLock { state in
            RegistryRestoration(
                restored: Set(state.held.filter(\.value.isRestored).keys),
                restoring: Set(state.held.filter { !$0.value.isRestored }.keys))
        }
    }

    /// The records ignored since the start, per topic and reason (`foreign` among them), held partitions or not.
    package var ignored: [RegistryTables.IgnoredKey: Int] {
        state.withLock { state in
            state.held.values.reduce(into: state.ignoredBefore) { total, held in
                total.merge(held.tables.ignored, uniquingKeysWith: +)
            }
        }
    }

    package func run(shutdown: GracefulShutdown) async {
        await shutdown.wait()
        let followers = state.withLock { Array($0.stopping.values) + $0.held.values.map(\.follower) }
        revoke(Set(progress.held))
        for follower in followers { await follower.value }
    }

    /// Follows `partition` of both topics into `tables` until cancelled.
    private func follow(_ partition: Int32, into tables: RegistryTables) async {
        let started = ContinuousClock.now
        logger.info("registry partition restoring", metadata: ["kafka.partition": .init(Int(partition))])
        await withTaskGroup(of: Void.self) { group in
            for (topic, name) in [
                (RegistryTables.Topic.devices, registry.devicesTopic), (.clients, registry.clientsTopic),
            ] {
                let follower = TopicTableFollower(
                    configuration: configuration, topic: name, partitions: [partition],
                    start: { tables.store.offsets(of: name) },
                    caughtUp: { [self] in
                        tables.markLoaded(topic)
                        guard tables.isLoaded else { return }
                        markRestored(partition, tables: tables, after: ContinuousClock.now - started)
                    },
                    remaining: { tables.setLag($0, of: topic) },
                    apply: { [logger] records in
                        let ignored = try tables.apply(
                            records.map {
                                RegistryRecord(key: $0.key, value: $0.value, partition: $0.partition, offset: $0.offset)
                            }, of: topic, named: name)
                        for (record, error) in ignored {
                            logger.warning(
                                "registry record ignored",
                                metadata: [
                                    "kafka.topic": .string(name), "kafka.partition": .init(Int(partition)),
                                    "kafka.offset": .init(Int(record.offset ?? -1)),
                                    "registry.reason": .string(error.reason.rawValue), "error": .string(error.message),
                                ])
                        }
                    })
                group.addTask { [logger] in
                    await follower.run { error in
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
    private func markRestored(_ partition: Int32, tables: RegistryTables, after elapsed: Duration) {
        let waiters: [CheckedContinuation<Void, Never>]? = state.withLock { state in
            guard let held = state.held[partition], held.tables === tables, !held.isRestored else { return nil }
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
}

/// Which registry partitions a pod holds: restored, or still restoring.
package struct RegistryRestoration: Sendable, Equatable {
    package var restored: Set<Int32>
    package var restoring: Set<Int32>

    package init(restored: Set<Int32>, restoring: Set<Int32>) {
        self.restored = restored
        self.restoring = restoring
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
