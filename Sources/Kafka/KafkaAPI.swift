/// A Kafka protocol request type (API key), as used for the mock cluster's request-error injection.
public struct KafkaAPI: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int16

    public init(rawValue: Int16) {
        self.rawValue = rawValue
    }

    /// The API with this protocol name (`Produce`, `OffsetCommit`, …), case-insensitively, or a number.
    public init?(name: String) {
        if let key = Int16(name), key >= 0 {
            self.init(rawValue: key)
            return
        }
        guard let known = Self.known.first(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        self = known.api
    }

    public var description: String { Self.known.first { $0.api == self }?.name ?? "ApiKey\(rawValue)" }

    public static let produce = KafkaAPI(rawValue: 0)
    public static let fetch = KafkaAPI(rawValue: 1)
    public static let listOffsets = KafkaAPI(rawValue: 2)
    public static let metadata = KafkaAPI(rawValue: 3)
    public static let offsetCommit = KafkaAPI(rawValue: 8)
    public static let offsetFetch = KafkaAPI(rawValue: 9)
    public static let findCoordinator = KafkaAPI(rawValue: 10)
    public static let joinGroup = KafkaAPI(rawValue: 11)
    public static let heartbeat = KafkaAPI(rawValue: 12)
    public static let leaveGroup = KafkaAPI(rawValue: 13)
    public static let syncGroup = KafkaAPI(rawValue: 14)
    public static let apiVersions = KafkaAPI(rawValue: 18)
    public static let initProducerId = KafkaAPI(rawValue: 22)

    /// The APIs known by name, for the dev broker's control protocol.
    public static let known: [(name: String, api: KafkaAPI)] = [
        ("Produce", .produce), ("Fetch", .fetch), ("ListOffsets", .listOffsets), ("Metadata", .metadata),
        ("OffsetCommit", .offsetCommit), ("OffsetFetch", .offsetFetch), ("FindCoordinator", .findCoordinator),
        ("JoinGroup", .joinGroup), ("Heartbeat", .heartbeat), ("LeaveGroup", .leaveGroup),
        ("SyncGroup", .syncGroup), ("ApiVersions", .apiVersions), ("InitProducerId", .initProducerId),
    ]
}
