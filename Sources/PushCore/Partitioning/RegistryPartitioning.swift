/// How the producers of the registry topics place a record (`PUSH_REGISTRY_PARTITIONING`).
public enum RegistryPartitioning: String, Sendable, CaseIterable {
    /// The producer's own partitioner over the whole record key: where existing deployments' records are.
    case key
    /// The partition of the record's client (`ClientPartitioner`): a client's devices and settings together, as
    /// `PUSH_REGISTRY_SCOPE=assigned` needs them.
    case client

    /// The partition to write a record of `client` to among `partitions`; `nil` leaves it to the producer.
    public func partition(of client: ClientKey, partitions: Int) -> Int32? {
        switch self {
        case .key: nil
        case .client: ClientPartitioner.partition(of: client, partitions: partitions)
        }
    }
}
