public import PushCore

/// The LMDB copies of registry partitions under one directory (`PUSH_DEVICE_STORE=lmdb:/path` with
/// `PUSH_REGISTRY_SCOPE=assigned`): one directory per partition, `partition-<p>-of-<n>`, so a copy made under another
/// partition count (other clients in each partition) is never resumed. Pure: names and the choice of what to remove.
public enum PartitionCopies {
    /// The directory name of `partition`'s copy.
    public static func directoryName(of partition: RegistryPartition) -> String {
        "partition-\(partition.partition)-of-\(partition.partitions)"
    }

    /// The partition whose copy a directory of this name is; `nil` for any other name.
    public static func partition(ofDirectoryName name: String) -> RegistryPartition? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "partition", parts[2] == "of",
            let partition = Int32(parts[1]), partition >= 0, let count = Int(parts[3]), count > partition,
            directoryName(of: RegistryPartition(partition, of: count)) == name
        else { return nil }
        return RegistryPartition(partition, of: count)
    }

    /// One copy found in the directory, with when it was last used (seconds since the epoch; a larger one is newer).
    public struct Copy: Sendable, Equatable {
        public var partition: RegistryPartition
        public var lastUsed: Int64

        public init(partition: RegistryPartition, lastUsed: Int64) {
            self.partition = partition
            self.lastUsed = lastUsed
        }
    }

    /// The copies to remove so that at most `retained` copies of partitions not `held` stay: the least recently used
    /// first (ties in partition order). A held partition's copy is never removed.
    public static func surplus(_ copies: [Copy], held: Set<RegistryPartition>, retained: Int) -> [RegistryPartition] {
        let idle = copies.filter { !held.contains($0.partition) }.sorted {
            ($0.lastUsed, $0.partition.partitions, $0.partition.partition)
                > ($1.lastUsed, $1.partition.partitions, $1.partition.partition)
        }
        return idle.dropFirst(max(0, retained)).map(\.partition)
    }
}
