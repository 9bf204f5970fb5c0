import Configuration
import DeviceRegistry
import Observability
import PushCore
import Synchronization

/// Where `AssignedRegistry` keeps each partition's tables: in memory (`PUSH_DEVICE_STORE=memory`), or in an LMDB
/// copy per partition under the store's directory (`lmdb:/path`), resumed from the offsets it holds. A copy that
/// cannot serve (another format, other topics, a file LMDB cannot open) is removed and made anew, and a partition
/// whose copy cannot be made at all is kept in memory: an error in the log, never a stop. A damaged file is moved
/// aside by the store itself (`LMDBDeviceStore`) and counted.
final class PartitionStores: Sendable {
    private let registry: RegistryConfiguration
    private let logger: Logger
    /// The copies' directory, opened at the first LMDB partition (`nil` before, or with a memory store).
    private let directory = Mutex<PartitionCopiesDirectory?>(nil)
    private let rebuilds = Mutex<[String: Int]>([:])

    init(registry: RegistryConfiguration, logger: Logger) {
        self.registry = registry
        self.logger = logger
    }

    /// One partition's store as opened, with how to close it.
    struct Opened: Sendable {
        let store: any DeviceStore
        let close: @Sendable () -> Void
        /// Whether the store resumes a copy that already held records.
        let resumed: Bool
    }

    /// Opens `partition`'s store.
    func open(_ partition: RegistryPartition) -> Opened {
        guard case .lmdb(let root) = registry.store else { return Self.memory }
        do {
            let copies = try copiesDirectory(root)
            do {
                return try openCopy(partition, in: copies)
            } catch {
                logger.error(
                    "registry partition copy unusable; making it anew",
                    metadata: ["kafka.partition": .init(Int(partition.partition)), "error": .string(error.description)])
                try copies.remove(partition)
                return try openCopy(partition, in: copies)
            }
        } catch {
            logger.error(
                "cannot keep the registry partition on disk; keeping it in memory",
                metadata: ["kafka.partition": .init(Int(partition.partition)), "error": .string(error.description)])
            return Self.memory
        }
    }

    private static var memory: Opened { Opened(store: MemoryDeviceStore(), close: {}, resumed: false) }

    private func copiesDirectory(_ root: String) throws(RegistryStoreError) -> PartitionCopiesDirectory {
        try directory.withLock { directory throws(RegistryStoreError) in
            if let directory { return directory }
            let opened = try PartitionCopiesDirectory(path: root)
            directory = opened
            return opened
        }
    }

    private func openCopy(_ partition: RegistryPartition, in copies: PartitionCopiesDirectory)
        throws(RegistryStoreError) -> Opened
    {
        let store = try LMDBDeviceStore(path: try copies.copy(of: partition), mapBytes: registry.mapBytes)
        if let recovery = store.recovery {
            rebuilds.withLock { $0[recovery.reason, default: 0] += 1 }
            logger.error(
                "registry partition copy damaged, moved aside; restoring it from the topics",
                metadata: [
                    "kafka.partition": .init(Int(partition.partition)), "registry.file": .string(recovery.file),
                    "registry.reason": .string(recovery.reason), "error": .string(recovery.detail),
                ])
        }
        do {
            try store.check(topics: [registry.devicesTopic, registry.clientsTopic])
        } catch {
            store.close()
            throw error
        }
        copies.touch(partition)
        let resumed =
            !store.offsets(of: registry.devicesTopic).isEmpty || !store.offsets(of: registry.clientsTopic).isEmpty
        return Opened(
            store: store,
            close: {
                store.close()
                copies.touch(partition)
            }, resumed: resumed)
    }

    /// Removes the copies of partitions not in `held()` beyond the `PUSH_REGISTRY_RETAINED_COPIES` most recently used.
    /// One prune at a time: partitions stopping together each prune, and a copy is removed (and logged) once.
    /// `held()` is read under the lock that `open` takes too, so a partition held after that read opens its copy only
    /// once the prune is done.
    func prune(held: () -> Set<RegistryPartition>) {
        directory.withLock { directory in
            guard let copies = directory else { return }
            for partition in PartitionCopies.surplus(copies.copies(), held: held(), retained: registry.retainedCopies) {
                do throws(RegistryStoreError) {
                    try copies.remove(partition)
                    logger.info(
                        "registry partition copy removed",
                        metadata: [
                            "kafka.partition": .init(Int(partition.partition)),
                            "registry.partitions": .init(partition.partitions),
                        ])
                } catch {
                    logger.warning(
                        "cannot remove a registry partition copy", metadata: ["error": .string(error.description)])
                }
            }
        }
    }

    /// The damaged copies moved aside since the start, per reason.
    var rebuildsByReason: [String: Int] { rebuilds.withLock { $0 } }
}
