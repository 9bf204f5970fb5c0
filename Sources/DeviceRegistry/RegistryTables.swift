import PushCore
import Synchronization

/// The device registry and the client settings as a pod follows them: records decoded into a `DeviceStore`, the
/// ignored ones counted by reason, and whether each topic has been read up to where it ended at the start.
public final class RegistryTables: Sendable {
    public let store: any DeviceStore
    private let state = Mutex(State())

    private struct State {
        var ignored: [IgnoredKey: Int] = [:]
        var devicesLoaded = false
        var clientsLoaded = false
        var lag: [Topic: Int64] = [:]
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

    public init(store: any DeviceStore) {
        self.store = store
    }

    /// Applies one record of the device registry (`value == nil` or empty: a tombstone); a record that cannot be
    /// trusted is counted and returned, and changes nothing.
    @discardableResult
    public func applyDevice(key: [UInt8]?, value: [UInt8]?) -> RegistryRecordError? {
        do {
            store.apply(try RegistryRecordDecoder.subscription(key: key, value: Self.tombstoneAsNil(value)))
            return nil
        } catch {
            count(error, in: .devices)
            return error
        }
    }

    /// Applies one record of the client settings; as `applyDevice`.
    @discardableResult
    public func applyClient(key: [UInt8]?, value: [UInt8]?) -> RegistryRecordError? {
        do {
            store.apply(try RegistryRecordDecoder.settings(key: key, value: Self.tombstoneAsNil(value)))
            return nil
        } catch {
            count(error, in: .clients)
            return error
        }
    }

    /// How many records were ignored, per topic and reason.
    public var ignored: [IgnoredKey: Int] { state.withLock { $0.ignored } }

    /// Records `topic` as read up to where it ended at the start.
    public func markLoaded(_ topic: Topic) {
        state.withLock { state in
            switch topic {
            case .devices: state.devicesLoaded = true
            case .clients: state.clientsLoaded = true
            }
            state.lag[topic] = 0
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
