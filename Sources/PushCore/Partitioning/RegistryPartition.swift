/// One partition of the co-partitioned registry topics as a pod holds it: the clients whose key `ClientPartitioner`
/// places in `partition` among `partitions`.
public struct RegistryPartition: Sendable, Hashable {
    public var partition: Int32
    /// The topics' partition count.
    public var partitions: Int

    public init(_ partition: Int32, of partitions: Int) {
        self.partition = partition
        self.partitions = partitions
    }

    /// Whether `client`'s records belong to this partition.
    public func holds(_ client: ClientKey) -> Bool {
        ClientPartitioner.partition(of: client, partitions: partitions) == partition
    }
}
