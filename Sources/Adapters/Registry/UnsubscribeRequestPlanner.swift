package import DeviceRegistry
package import KafkaTypes
import PushCore
package import PushPipeline

/// The fan-out stage's handling of the unsubscribe requests among its records (`UnsubscribeRequest`, told by its
/// header); every other record is `inner`'s. A request read from partition p deletes, by compare-and-delete, the keys
/// of its client in registry partition p that still hold its token on its platform: it plans no device and passes
/// their tombstones on (`PlannedEvent.forwarded`), so its offset is committed only once Kafka acknowledged them, and a
/// repeat finds nothing to delete. Only a request whose key is its client's key, and whose client is one of p's, is
/// applied (the partition check of the key is `OwnPartitionPlanner`'s, around this one); any other, or a value that is
/// not a request, is dead-lettered `decode_error` with a message that never holds the token.
package struct UnsubscribeRequestPlanner<Inner: EventPlanner>: RewritingPlanner {
    package typealias Request = Inner.Request

    package let inner: Inner
    /// The co-partitioned topics' partition count.
    let partitions: Int
    /// The token holders of a registry partition restored here; `nil` for one that is not.
    let holders: @Sendable (Int32) -> (any TokenHolders)?
    let placement: RegistryPlacement
    let counts: UnsubscribeRequestCounts

    package init(
        inner: Inner, partitions: Int, holders: @escaping @Sendable (Int32) -> (any TokenHolders)?,
        placement: RegistryPlacement, counts: UnsubscribeRequestCounts
    ) {
        self.inner = inner
        self.partitions = partitions
        self.holders = holders
        self.placement = placement
        self.counts = counts
    }

    /// Any other record's plan, `inner`'s as it is: a bare value has no header, so it is never a request.
    package func rewritten(
        _ result: consuming Result<PlannedEvent<Request>, UndecodableEvent>, nowMillis: Int64
    ) -> Result<
        PlannedEvent<Request>, UndecodableEvent
    > { result }

    package func prepare(_ record: KafkaRecord, scan: RecordScan) -> PreparedPlan<Request> {
        guard let kind = record.headers.text(UnsubscribeRequest.header) else {
            return inner.prepare(record, scan: scan)
        }
        return PreparedPlan(deviceBound: 1) { _ in apply(record, kind: kind) }
    }

    private func apply(_ record: KafkaRecord, kind: String) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        let partition = record.partition
        guard kind == UnsubscribeRequest.kind else {
            return .failure(Self.refused("a fan-out control record of partition \(partition) is of an unknown kind"))
        }
        guard let request = UnsubscribeRequest(json: record.value) else {
            return .failure(Self.refused("an unsubscribe request of partition \(partition) is not one"))
        }
        guard record.key == Array(request.client.description.utf8) else {
            return .failure(Self.refused("an unsubscribe request of partition \(partition) is not keyed by its client"))
        }
        let placed = ClientPartitioner.partition(of: request.client, partitions: partitions)
        guard placed == partition else {
            return .failure(
                Self.refused("an unsubscribe request of partition \(partition) names a client of partition \(placed)"))
        }
        guard let holders = holders(partition) else {
            return .failure(Self.refused("an unsubscribe request of partition \(partition), not restored here"))
        }
        let tombstones = holders.keys(ofClient: request.client.clientID, holding: request.token, on: request.platform)
            .filter { $0.client == request.client }
            .map { placement.record($0, value: [], partitions: partitions) }
        counts.count(tombstones.isEmpty ? .none : .deleted)
        let value = record.value
        var planned = PlannedEvent<Request>(
            messageId: request.messageId, roomId: "", type: UnsubscribeRequest.kind, eventTimeMillis: nil, devices: [],
            narrowed: { _ in value })
        planned.appID = request.client.appID
        planned.forwarded = tombstones
        return .success(planned)
    }

    private static func refused(_ message: String) -> UndecodableEvent {
        UndecodableEvent(reason: .decodeError, message: message)
    }
}
