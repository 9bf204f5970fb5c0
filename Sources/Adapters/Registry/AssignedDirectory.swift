package import PushCore

/// The device directory of the fan-out stage: a client is looked up in the registry partition `ClientPartitioner`
/// places it in, the partition its fan-out record was written to (the input stage placed it with the same function
/// over the same count), which the stage holds and has restored before it plans the record (`GatedRecordSource`).
/// A client of a partition not held finds nothing.
package struct AssignedDirectory: DeviceDirectory {
    let registry: AssignedRegistry
    /// The co-partitioned topics' partition count.
    let partitions: Int

    package init(registry: AssignedRegistry, partitions: Int) {
        self.registry = registry
        self.partitions = partitions
    }

    package func subscriptions(of client: ClientKey) -> [Subscription] {
        directory(of: client)?.subscriptions(of: client) ?? []
    }

    package func settings(of client: ClientKey) -> ClientSettings? {
        directory(of: client)?.settings(of: client)
    }

    private func directory(of client: ClientKey) -> (any DeviceDirectory)? {
        registry.directory(ofPartition: ClientPartitioner.partition(of: client, partitions: partitions))
    }
}
