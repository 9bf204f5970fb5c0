public import KafkaTypes
import PushCore

/// The fan-out stage's planner port: a fan-out record is planned only when it belongs to the partition it was read
/// from, the registry partition of the same number being the only one its recipient may be resolved against: its key
/// is a client key that `ClientPartitioner` places there, and every client its plan resolves is one of that
/// partition's. Any other record (forged, or from a producer that does not partition by client) is dead-lettered
/// `misplaced_fanout` with its original bytes and a message naming both partitions, and its partition goes on.
///
/// The check costs a hash of the key before planning (a misplaced key is refused without a registry lookup) and one
/// per planned device after it. A value alone does not say where it was read: `plan(_:nowMillis:)` and
/// `prepare(_:scan:)` of a bare value are `inner`'s; the pipeline prepares records.
public struct OwnPartitionPlanner<Inner: EventPlanner>: EventPlanner {
    public typealias Request = Inner.Request

    let inner: Inner
    /// The co-partitioned topics' partition count.
    let partitions: Int

    public init(inner: Inner, partitions: Int) {
        self.inner = inner
        self.partitions = partitions
    }

    public func deviceBound(_ value: [UInt8]) -> Int { inner.deviceBound(value) }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        inner.plan(value, nowMillis: nowMillis)
    }

    public func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<Request> {
        inner.prepare(value, scan: scan)
    }

    public func prepare(_ record: KafkaRecord, scan: RecordScan) -> PreparedPlan<Request> {
        let partition = record.partition
        guard let key = record.key else {
            return Self.refused("a fan-out record of partition \(partition) has no key")
        }
        let keyed = ClientPartitioner.partition(ofClientKey: key, partitions: partitions)
        guard keyed == partition else {
            return Self.refused("a fan-out record of partition \(partition) has a key of partition \(keyed)")
        }
        return inner.prepare(record, scan: scan).map { result, _ in
            guard case .success(let planned) = result else { return result }
            for device in planned.devices {
                let client = ClientKey(appID: planned.appID, clientID: device.target.userId)
                let placed = ClientPartitioner.partition(of: client, partitions: partitions)
                guard placed == partition else {
                    return .failure(
                        Self.misplaced(
                            "a fan-out record of partition \(partition) resolves client \(client) of partition \(placed)"
                        ))
                }
            }
            return result
        }
    }

    private static func misplaced(_ message: String) -> UndecodableEvent {
        UndecodableEvent(reason: .misplacedFanout, message: message)
    }

    private static func refused(_ message: String) -> PreparedPlan<Request> {
        PreparedPlan(deviceBound: 1) { _ in .failure(misplaced(message)) }
    }
}
