import Adapters
import Configuration
import DeviceRegistry
import Essentials
import Foundation
import Kafka
import KafkaTypes
import Lifecycle
import Observability
import PushCore
import TestSupport
import Testing

/// `AssignedRegistry` against librdkafka's mock cluster over TCP: registry topics of 6 partitions, devices placed by
/// `ClientPartitioner`, settings by librdkafka's own `murmur2_random` partitioner over their key.
@Suite struct AssignedRegistryTests {
    static let partitions = 6
    let cluster: MockCluster
    let registry: RegistryConfiguration
    let clients = (0..<60).map { "client-\($0)" }

    init() throws {
        cluster = try MockCluster(brokers: 1)
        var registry = RegistryConfiguration()
        let suffix = UUID().uuidString.prefix(8)
        registry.devicesTopic = "devices-\(suffix)"
        registry.clientsTopic = "clients-\(suffix)"
        for topic in [registry.devicesTopic, registry.clientsTopic] {
            try cluster.createTopic(topic, partitions: Self.partitions)
        }
        self.registry = registry
    }

    var configuration: KafkaConfiguration { KafkaConfiguration(["bootstrap.servers": cluster.bootstrapServers]) }

    static func partition(of client: String) -> Int32 {
        ClientPartitioner.partition(of: ClientKey(appID: "SampleApp", clientID: client), partitions: partitions)
    }

    static func token(_ index: Int) -> String { String(format: "%064x", index) }

    static func subscription(_ client: String, device: String, token: String) -> Subscription {
        Subscription(appID: "SampleApp", clientID: client, type: .ios, token: token, deviceID: device)
    }

    /// Two devices per client on the partition `ClientPartitioner` gives, one settings record per client placed by
    /// librdkafka's `murmur2_random` over the settings key, and one device record written to a wrong partition.
    func produceRegistry() async throws {
        let producer = try KafkaProducer(configuration: configuration)
        for (index, client) in clients.enumerated() {
            for device in ["D1", "D2"] {
                let phone = Self.subscription(client, device: device, token: Self.token(index))
                _ = try await producer.send(
                    KafkaProducerRecord(
                        topic: registry.devicesTopic, partition: Self.partition(of: client),
                        key: Array(phone.key.description.utf8), value: phone.json()))
            }
        }
        let stray = Self.subscription("stray", device: "D1", token: Self.token(999))
        _ = try await producer.send(
            KafkaProducerRecord(
                topic: registry.devicesTopic, partition: (Self.partition(of: "stray") + 1) % Int32(Self.partitions),
                key: Array(stray.key.description.utf8), value: stray.json()))
        await producer.close()
        var murmur = configuration
        murmur["partitioner"] = "murmur2_random"
        let javaLike = try KafkaProducer(configuration: murmur)
        for client in clients {
            _ = try await javaLike.send(
                KafkaProducerRecord(
                    topic: registry.clientsTopic,
                    key: ClientPartitioner.clientKey(appID: "SampleApp", clientID: client),
                    value: Array(#"{"appID": "SampleApp", "clientId": "\#(client)", "mute": ["r-\#(client)"]}"#.utf8)))
        }
        await javaLike.close()
    }

    func assigned(
        store: RegistryConfiguration.Store = .memory, retainedCopies: Int = 4,
        logger: Logger = Logger(label: "test", level: .critical)
    ) -> AssignedRegistry {
        var registry = registry
        registry.store = store
        registry.retainedCopies = retainedCopies
        registry.mapBytes = 16 * 1024 * 1024
        return AssignedRegistry(
            configuration: configuration, registry: registry, partitions: Self.partitions, logger: logger,
            clock: SystemWallClock())
    }

    /// The copies' directory names in `root`.
    func copies(in root: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasPrefix("partition-") })
    }

    @Test func aPartitionAssignedAgainResumesItsCopyAndReadsNothingOld() async throws {
        try await produceRegistry()
        let root = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let registry = assigned(store: .lmdb(path: root.path))
        registry.assign([3])
        await registry.restored(3)
        let first = try #require(registry.recordsRead(ofPartition: 3))
        #expect(first[.devices, default: 0] > 0 && first[.clients, default: 0] > 0)
        registry.revoke([3])
        registry.assign([3])
        await registry.restored(3)
        #expect(registry.recordsRead(ofPartition: 3) == [.devices: 0, .clients: 0])
        let directory = try #require(registry.directory(ofPartition: 3))
        let client = try #require(clients.first { Self.partition(of: $0) == 3 })
        #expect(directory.subscriptions(of: ClientKey(appID: "SampleApp", clientID: client)).count == 2)
        #expect(registry.statistics.clients == clients.filter { Self.partition(of: $0) == 3 }.count)
        registry.revoke([3])
    }

    @Test func aDamagedCopyIsMovedAsideAndRestoredFromTheTopics() async throws {
        try await produceRegistry()
        let root = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let registry = assigned(store: .lmdb(path: root.path))
        registry.assign([5])
        await registry.restored(5)
        let expected = try #require(registry.recordsRead(ofPartition: 5))
        registry.revoke([5])
        await registry.stopped(5)
        // The closed copy's file overwritten with what LMDB cannot map.
        try Data(repeating: 0xAB, count: 64 * 1024).write(to: root.appending(path: "partition-5-of-6/data.mdb"))
        registry.assign([5])
        await registry.restored(5)
        #expect(registry.recordsRead(ofPartition: 5) == expected)
        #expect(registry.rebuilds.values.reduce(0, +) == 1)
        let client = try #require(clients.first { Self.partition(of: $0) == 5 })
        #expect(
            registry.directory(ofPartition: 5)?.subscriptions(of: ClientKey(appID: "SampleApp", clientID: client))
                .count == 2)
        registry.revoke([5])
    }

    @Test func revokedCopiesBeyondTheRetainedOnesAreRemovedTheOldestFirst() async throws {
        try await produceRegistry()
        let root = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let registry = assigned(store: .lmdb(path: root.path), retainedCopies: 1)
        registry.assign([0, 1, 2])
        for partition: Int32 in [0, 1, 2] { await registry.restored(partition) }
        #expect(try copies(in: root).count == 3)
        registry.revoke([0, 1])
        await registry.stopped(0)
        await registry.stopped(1)
        // One of the two revoked copies stays beside the held one.
        let left = try copies(in: root)
        #expect(left.count == 2 && left.contains("partition-2-of-6"), "\(left)")
        registry.revoke([2])
        await registry.stopped(2)
        // The last one used is the one kept.
        #expect(try copies(in: root) == ["partition-2-of-6"])
    }

    @Test func aShutdownKeepsTheCopyOfEveryPartitionHeldBeyondTheRetainedOnes() async throws {
        try await produceRegistry()
        let root = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let lines = LogLines()
        let registry = assigned(
            store: .lmdb(path: root.path), retainedCopies: 1, logger: Logger(label: "test", sink: lines))
        let all = Set(0..<Int32(Self.partitions))
        registry.assign(all)
        for partition in all { await registry.restored(partition) }
        let shutdown = GracefulShutdown()
        async let running: Void = registry.run(shutdown: shutdown)
        shutdown.request()
        await running
        #expect(try copies(in: root).count == Self.partitions)
        #expect(lines.records("registry partition copy removed").isEmpty)
    }

    @Test func partitionsRevokedTogetherLogEachCopyRemovedOnce() async throws {
        try await produceRegistry()
        let root = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let lines = LogLines()
        let registry = assigned(
            store: .lmdb(path: root.path), retainedCopies: 0, logger: Logger(label: "test", sink: lines))
        let all = Set(0..<Int32(Self.partitions))
        registry.assign(all)
        for partition in all { await registry.restored(partition) }
        registry.revoke(all)
        for partition in all { await registry.stopped(partition) }
        #expect(try copies(in: root).isEmpty)
        let removed = lines.records("registry partition copy removed").map { $0.metadata["kafka.partition"] }
        #expect(removed.count == Self.partitions, "\(removed)")
        #expect(Set(removed.map { "\(String(describing: $0))" }).count == Self.partitions)
    }

    @Test func anAssignedPartitionAnswersForExactlyItsClients() async throws {
        try await produceRegistry()
        let registry = assigned()
        registry.assign([1, 4])
        await registry.restored(1)
        await registry.restored(4)
        #expect(registry.progress == RegistryRestoration(restored: [1, 4], restoring: []))
        #expect(registry.directory(ofPartition: 0) == nil)
        for partition: Int32 in [1, 4] {
            let directory = try #require(registry.directory(ofPartition: partition))
            for client in clients {
                let key = ClientKey(appID: "SampleApp", clientID: client)
                let owned = Self.partition(of: client) == partition
                #expect(directory.subscriptions(of: key).map(\.deviceID) == (owned ? ["D1", "D2"] : []))
                // Settings went through librdkafka's murmur2_random: the same partition as the devices'.
                #expect((directory.settings(of: key)?.mutedRooms.contains("r-\(client)") ?? false) == owned)
            }
        }
        // The keys a dead token's tombstones delete: found in the partitions held, nowhere else.
        for (index, client) in clients.enumerated() {
            let held = [1, 4].contains(Self.partition(of: client))
            #expect(
                registry.keys(ofClient: client, holding: Self.token(index), on: .apns).map(\.deviceID)
                    == (held ? ["D1", "D2"] : []))
        }
        registry.revoke([1])
        #expect(registry.directory(ofPartition: 1) == nil)
        #expect(registry.progress == RegistryRestoration(restored: [4], restoring: []))
        await registry.restored(1)
        registry.revoke([4])
    }

    @Test func aDeadTokensHoldersAreThoseOfItsClientsPartitionOnlyOnceRestored() async throws {
        try await produceRegistry()
        let registry = assigned()
        registry.assign([1])
        await registry.restored(1)
        let held = try #require(clients.indices.first { Self.partition(of: clients[$0]) == 1 })
        let elsewhere = try #require(clients.indices.first { Self.partition(of: clients[$0]) != 1 })
        let holders = try #require(registry.holders(ofPartition: 1))
        #expect(holders.keys(ofClient: clients[held], holding: Self.token(held), on: .apns).count == 2)
        #expect(holders.keys(ofClient: clients[elsewhere], holding: Self.token(elsewhere), on: .apns).isEmpty)
        // A partition not held has no holders here: its dead tokens are routed to the pod that holds it.
        #expect(registry.holders(ofPartition: Self.partition(of: clients[elsewhere])) == nil)
        registry.revoke([1])
        #expect(registry.holders(ofPartition: 1) == nil)
    }

    @Test func aRecordOfAClientOfAnotherPartitionIsIgnoredAsForeign() async throws {
        try await produceRegistry()
        let wrong = (Self.partition(of: "stray") + 1) % Int32(Self.partitions)
        let registry = assigned()
        registry.assign([wrong])
        await registry.restored(wrong)
        let directory = try #require(registry.directory(ofPartition: wrong))
        #expect(directory.subscriptions(of: ClientKey(appID: "SampleApp", clientID: "stray")).isEmpty)
        #expect(registry.ignored == [.init(topic: .devices, reason: .foreign): 1])
        registry.revoke([wrong])
    }

    @Test func aRestoredPartitionKeepsFollowingItsTopics() async throws {
        try await produceRegistry()
        let client = try #require(clients.first { Self.partition(of: $0) == 2 })
        let registry = assigned()
        registry.assign([2])
        await registry.restored(2)
        let producer = try KafkaProducer(configuration: configuration)
        let tablet = Self.subscription(client, device: "D3", token: Self.token(7))
        _ = try await producer.send(
            KafkaProducerRecord(
                topic: self.registry.devicesTopic, partition: 2, key: Array(tablet.key.description.utf8),
                value: tablet.json()))
        await producer.close()
        let key = ClientKey(appID: "SampleApp", clientID: client)
        let deadline = ContinuousClock.now + .seconds(20)
        while registry.directory(ofPartition: 2)?.subscriptions(of: key).count != 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(registry.directory(ofPartition: 2)?.subscriptions(of: key).map(\.deviceID) == ["D1", "D2", "D3"])
        registry.revoke([2])
    }

    @Test func waitingForAPartitionEndsWhenTheWaitIsCancelledAndEachFailedConnectionIsCounted() async throws {
        // The topics have 6 partitions, not 41: partition 40 never restores, each connection fails at once.
        let registry = assigned()
        registry.assign([40])
        let waiting = Task { await registry.restored(40) }
        waiting.cancel()
        await waiting.value
        #expect(registry.directory(ofPartition: 40) == nil)
        #expect(registry.progress.health.status == .warn)
        let deadline = ContinuousClock.now + .seconds(20)
        while registry.followFailures(of: .devices) == 0 || registry.followFailures(of: .clients) == 0,
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(registry.followFailures(of: .devices) >= 1)
        #expect(registry.followFailures(of: .clients) >= 1)
        registry.revoke([40])
    }
}
