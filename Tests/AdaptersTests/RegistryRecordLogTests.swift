import DeviceRegistry
import KafkaTypes
import Observability
import PushCore
import TestSupport
import Testing

@testable import Adapters

@Suite struct RegistryRecordLogTests {
    /// Clients `c0`, `c1`, … that `partition` holds (`mine`) or does not (`others`).
    static func clients(of partition: RegistryPartition, mine: Bool) -> [String] {
        (0..<400).map { "c\($0)" }.filter { partition.holds(ClientKey(appID: "A", clientID: $0)) == mine }
    }

    static func settings(_ client: String, partition: Int32, offset: Int64, body: String = #""badge": 4242"#)
        -> KafkaRecord
    {
        KafkaRecord(
            topic: "push.clients", partition: partition, offset: offset, key: Array("A/\(client)".utf8),
            value: Array(#"{"appID": "A", "clientId": "\#(client)", \#(body)}"#.utf8))
    }

    @Test func ignoredAndTrimmedRecordsAreLoggedWithWhereTheyWereReadNeverTheirValue() throws {
        let partition = RegistryPartition(0, of: 2)
        let tables = RegistryTables(store: MemoryDeviceStore(), partition: partition)
        let mine = try #require(Self.clients(of: partition, mine: true).first)
        let other = try #require(Self.clients(of: partition, mine: false).first)
        let rooms = (0...RegistryRecordDecoder.maximumMutedRooms).map { "\"r\($0)\"" }.joined(separator: ",")
        let records = [
            Self.settings(mine, partition: 0, offset: 7, body: #""mute": [\#(rooms)]"#),
            Self.settings(other, partition: 0, offset: 8),
        ]
        let lines = LogLines()
        try tables.apply(
            records, of: .clients, named: "push.clients",
            log: RegistryRecordLog(logger: Logger(label: "t", sink: lines), clock: ManualClock()))
        let logged = lines.records
        #expect(logged.map(\.message.description) == ["registry record trimmed", "registry record ignored"])
        #expect(logged.map { $0.metadata["registry.reason"] } == [.string("too_many_muted_rooms"), .string("foreign")])
        #expect(logged.map { $0.metadata["kafka.offset"] } == [.integer(7), .integer(8)])
        #expect(logged.allSatisfy { $0.metadata["kafka.partition"] == .integer(0) })
        #expect(!logged.contains { "\($0.metadata)".contains("4242") })
        #expect(tables.store.settings(of: ClientKey(appID: "A", clientID: mine))?.mutedRooms.count == 1_000)
    }

    @Test func foreignRecordsAreEachCountedAndLoggedOncePerPartitionPerMinute() throws {
        let clock = ManualClock()
        let lines = LogLines()
        let log = RegistryRecordLog(logger: Logger(label: "t", sink: lines), clock: clock)
        let first = RegistryTables(store: MemoryDeviceStore(), partition: RegistryPartition(0, of: 2))
        let second = RegistryTables(store: MemoryDeviceStore(), partition: RegistryPartition(1, of: 2))
        let foreignToFirst = Self.clients(of: RegistryPartition(0, of: 2), mine: false).prefix(100)
        let foreignToSecond = Self.clients(of: RegistryPartition(1, of: 2), mine: false).prefix(100)
        try first.apply(
            foreignToFirst.enumerated().map { Self.settings($1, partition: 0, offset: Int64($0)) }, of: .clients,
            named: "push.clients", log: log)
        try second.apply(
            foreignToSecond.enumerated().map { Self.settings($1, partition: 1, offset: Int64($0)) }, of: .clients,
            named: "push.clients", log: log)
        clock.advance(by: .seconds(59))
        try first.apply(
            [Self.settings(foreignToFirst[0], partition: 0, offset: 100)], of: .clients, named: "push.clients", log: log
        )
        #expect(lines.records.map { $0.metadata["kafka.partition"] } == [.integer(0), .integer(1)])
        clock.advance(by: .seconds(1))
        try first.apply(
            [Self.settings(foreignToFirst[0], partition: 0, offset: 101)], of: .clients, named: "push.clients", log: log
        )
        let logged = lines.records("registry record ignored")
        #expect(logged.map { $0.metadata["kafka.offset"] } == [.integer(0), .integer(0), .integer(101)])
        // The line after the minute says how many like it were left out: 99 of the first batch, 1 after it.
        #expect(logged.last?.metadata["log.suppressed"] == .integer(100))
        let foreign = RegistryTables.IgnoredKey(topic: .clients, reason: .foreign)
        #expect(first.ignored[foreign] == 102 && second.ignored[foreign] == 100)
    }
}
