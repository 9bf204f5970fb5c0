import Dispatch
public import PushCore
import Synchronization

/// The device registry and the client settings as a pod follows them: records decoded into a `DeviceStore`, the
/// ignored ones counted by reason, and whether each topic has been read up to where it ended at the start.
public final class RegistryTables: Sendable {
    public let store: any DeviceStore
    /// The one partition these tables hold, when they hold one (`PUSH_REGISTRY_SCOPE=assigned`): a record of a client
    /// of another partition is ignored as `foreign`.
    public let partition: RegistryPartition?
    private let state = Mutex(State())

    private struct State {
        var ignored: [IgnoredKey: Int] = [:]
        var devicesLoaded = false
        var clientsLoaded = false
        var lag: [Topic: Int64] = [:]
        var read: [Topic: Int] = [:]
        var followFailures: [Topic: Int] = [:]
    }

    /// One of the two topics.
    public enum Topic: String, Sendable, CaseIterable {
        case devices
        case clients
    }

    /// A counter of ignored records.
    public struct IgnoredKey: Sendable, Hashable {
        public var topic: Topic
        public var reason: RegistryRecordError.Reason

        public init(topic: Topic, reason: RegistryRecordError.Reason) {
            self.topic = topic
            self.reason = reason
        }
    }

    public init(store: any DeviceStore, partition: RegistryPartition? = nil) {
        self.store = store
        self.partition = partition
    }

    /// Applies one record of the device registry (`value == nil` or empty: a tombstone), for a tool reading the
    /// topic; a record that cannot be trusted is counted and returned, and changes nothing.
    @discardableResult
    public func applyDevice(key: [UInt8]?, value: [UInt8]?) throws(RegistryStoreError) -> RegistryRecordError? {
        try apply([RegistryRecord(key: key, value: value)], of: .devices).first?.error
    }

    /// Applies one record of the client settings; as `applyDevice`.
    @discardableResult
    public func applyClient(key: [UInt8]?, value: [UInt8]?) throws(RegistryStoreError) -> RegistryRecordError? {
        try apply([RegistryRecord(key: key, value: value)], of: .clients).first?.error
    }

    /// Applies one batch of `topic`'s records (named `name` in Kafka) to the store at once, with the offsets they
    /// bring each partition to (records without an offset bring none); returns the records ignored, each with why
    /// (they are counted, and change nothing; a settings record of `tooManyMutedRooms` is applied with the rooms
    /// kept).
    @discardableResult
    public func apply(_ records: [RegistryRecord], of topic: Topic, named name: String = "") throws(RegistryStoreError)
        -> [(
            record: RegistryRecord, error: RegistryRecordError
        )]
    {
        var batch = RegistryBatch(topic: name)
        var ignored: [(record: RegistryRecord, error: RegistryRecordError)] = []
        for (record, decoded) in zip(records, Self.decode(records, of: topic, holding: partition)) {
            switch decoded {
            case .device(let change): batch.devices.append(change)
            case .client(let change, let leftOut):
                batch.clients.append(change)
                if let leftOut {
                    count(leftOut, in: topic)
                    ignored.append((record, leftOut))
                }
            case .ignored(let error):
                count(error, in: topic)
                ignored.append((record, error))
            }
            guard let partition = record.partition, let offset = record.offset, offset >= 0 else { continue }
            let next = offset < Int64.max ? offset + 1 : offset
            batch.offsets[partition] = max(batch.offsets[partition] ?? next, next)
        }
        guard !records.isEmpty else { return [] }
        try store.apply(batch)
        state.withLock { $0.read[topic, default: 0] += records.count }
        return ignored
    }

    /// What one record decodes to.
    private enum Decoded: Sendable {
        case device(RegistryChange<DeviceKey, Subscription>)
        /// With why some of its muted rooms were left out, if they were.
        case client(RegistryChange<ClientKey, ClientSettings>, roomsLeftOut: RegistryRecordError?)
        case ignored(RegistryRecordError)

        /// The client of a record that decoded.
        var client: ClientKey? {
            switch self {
            case .device(.put(let key, _)), .device(.delete(let key)): key.client
            case .client(.put(let key, _), _), .client(.delete(let key), _): key
            case .ignored: nil
            }
        }
    }

    /// Batches at least this large are decoded in `decodingSlices` slices at once (a large registry's load is
    /// bound by the decoding, which is pure).
    public static let parallelDecodingThreshold = 256
    static let decodingSlices = 2

    /// Every record of `records` decoded, in order; a large batch in slices on several threads.
    private static func decode(_ records: [RegistryRecord], of topic: Topic, holding partition: RegistryPartition?)
        -> [Decoded]
    {
        guard records.count >= parallelDecodingThreshold else {
            return decode(records[...], of: topic, holding: partition)
        }
        let slices = decodingSlices
        let bounds = (0...slices).map { records.count * $0 / slices }
        let decoded = Mutex([[Decoded]](repeating: [], count: slices))
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            let part = decode(records[bounds[slice]..<bounds[slice + 1]], of: topic, holding: partition)
            decoded.withLock { $0[slice] = part }
        }
        return decoded.withLock { $0.flatMap { $0 } }
    }

    private static func decode(
        _ records: ArraySlice<RegistryRecord>, of topic: Topic, holding partition: RegistryPartition?
    ) -> [Decoded] {
        var locales = LocaleMemo()
        return records.map { record in
            let decoded = decode(record, of: topic, locales: &locales)
            guard let partition, let client = decoded.client, !partition.holds(client) else { return decoded }
            return .ignored(
                RegistryRecordError(
                    .foreign,
                    "the client belongs to partition "
                        + "\(ClientPartitioner.partition(of: client, partitions: partition.partitions)), "
                        + "not \(partition.partition) of \(partition.partitions)"))
        }
    }

    private static func decode(_ record: RegistryRecord, of topic: Topic, locales: inout LocaleMemo) -> Decoded {
        let value = tombstoneAsNil(record.value)
        do {
            switch topic {
            case .devices:
                return .device(try RegistryRecordDecoder.subscription(key: record.key, value: value, locales: &locales))
            case .clients:
                var leftOut = 0
                let change = try RegistryRecordDecoder.settings(key: record.key, value: value, roomsLeftOut: &leftOut)
                return .client(
                    change,
                    roomsLeftOut: leftOut == 0
                        ? nil
                        : RegistryRecordError(
                            .tooManyMutedRooms,
                            "mute: \(leftOut) rooms beyond the first \(RegistryRecordDecoder.maximumMutedRooms) ignored"
                        ))
            }
        } catch {
            return .ignored(error)
        }
    }

    /// How many records of `topic` were read since this process started (a store that resumes reads only what is
    /// newer than what it holds).
    public func recordsRead(of topic: Topic) -> Int { state.withLock { $0.read[topic] ?? 0 } }

    /// Counts a connection to `topic` that failed (Kafka, or a store that could not write), to be retried.
    public func countFollowFailure(of topic: Topic) {
        state.withLock { $0.followFailures[topic, default: 0] += 1 }
    }

    /// How many connections to `topic` failed since the start.
    public func followFailures(of topic: Topic) -> Int { state.withLock { $0.followFailures[topic] ?? 0 } }

    /// How many records were ignored, per topic and reason.
    public var ignored: [IgnoredKey: Int] { state.withLock { $0.ignored } }

    /// Records `topic` as read up to where it ended at the start; once both are, tells the store (`loaded()`) and
    /// returns its failure, if any (a disk-backed store that could not flush: it loads again at the next start).
    @discardableResult
    public func markLoaded(_ topic: Topic) -> RegistryStoreError? {
        let both = state.withLock { state in
            switch topic {
            case .devices: state.devicesLoaded = true
            case .clients: state.clientsLoaded = true
            }
            state.lag[topic] = 0
            return state.devicesLoaded && state.clientsLoaded
        }
        guard both else { return nil }
        do {
            try store.loaded()
            return nil
        } catch {
            return error
        }
    }

    /// Whether both topics are read up to where they ended when the worker started.
    public var isLoaded: Bool { state.withLock { $0.devicesLoaded && $0.clientsLoaded } }

    /// Sets how many records of `topic` are still to read.
    public func setLag(_ records: Int64, of topic: Topic) {
        state.withLock { $0.lag[topic] = max(0, records) }
    }

    /// How many records of `topic` are still to read (0 once caught up or before anything is known).
    public func lag(of topic: Topic) -> Int64 { state.withLock { $0.lag[topic] ?? 0 } }

    private func count(_ error: RegistryRecordError, in topic: Topic) {
        state.withLock { $0.ignored[IgnoredKey(topic: topic, reason: error.reason), default: 0] += 1 }
    }

    /// Kafka hands a null value over as no bytes: both are tombstones.
    private static func tombstoneAsNil(_ value: [UInt8]?) -> [UInt8]? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}

/// One record of a registry topic as the follower hands it over: Kafka's key, value (empty or `nil`: a tombstone),
/// and where it was read (`nil` for a record that did not come from the topic).
public struct RegistryRecord: Sendable, Equatable {
    public var key: [UInt8]?
    public var value: [UInt8]?
    public var partition: Int32?
    public var offset: Int64?

    public init(key: [UInt8]?, value: [UInt8]?, partition: Int32? = nil, offset: Int64? = nil) {
        self.key = key
        self.value = value
        self.partition = partition
        self.offset = offset
    }
}
