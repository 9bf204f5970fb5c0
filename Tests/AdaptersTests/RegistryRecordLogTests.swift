import DeviceRegistry
import KafkaTypes
import Observability
import PushCore
import Synchronization
import Testing

@testable import Adapters

@Suite struct RegistryRecordLogTests {
    final class Lines: LogSink {
        let records = Mutex<[LogRecord]>([])
        func write(_ record: LogRecord) { records.withLock { $0.append(record) } }
    }

    @Test func ignoredAndTrimmedRecordsAreLoggedWithWhereTheyWereReadNeverTheirValue() throws {
        let partition = RegistryPartition(0, of: 2)
        let tables = RegistryTables(store: MemoryDeviceStore(), partition: partition)
        let mine = try #require(
            (0..<50).map { "c\($0)" }.first { partition.holds(ClientKey(appID: "A", clientID: $0)) })
        let other = try #require(
            (0..<50).map { "c\($0)" }.first { !partition.holds(ClientKey(appID: "A", clientID: $0)) })
        let rooms = (0...RegistryRecordDecoder.maximumMutedRooms).map { "\"r\($0)\"" }.joined(separator: ",")
        let records = [
            KafkaRecord(
                topic: "push.clients", partition: 0, offset: 7, key: Array("A/\(mine)".utf8),
                value: Array(#"{"appID": "A", "clientId": "\#(mine)", "mute": [\#(rooms)]}"#.utf8)),
            KafkaRecord(
                topic: "push.clients", partition: 0, offset: 8, key: Array("A/\(other)".utf8),
                value: Array(#"{"appID": "A", "clientId": "\#(other)", "badge": 4242}"#.utf8)),
        ]
        let lines = Lines()
        try tables.apply(records, of: .clients, named: "push.clients", logger: Logger(label: "t", sink: lines))
        let logged = lines.records.withLock { $0 }
        #expect(logged.map(\.message.description) == ["registry record trimmed", "registry record ignored"])
        #expect(logged.map { $0.metadata["registry.reason"] } == [.string("too_many_muted_rooms"), .string("foreign")])
        #expect(logged.map { $0.metadata["kafka.offset"] } == [.integer(7), .integer(8)])
        #expect(logged.allSatisfy { $0.metadata["kafka.partition"] == .integer(0) })
        #expect(!logged.contains { "\($0.metadata)".contains("4242") })
        #expect(tables.store.settings(of: ClientKey(appID: "A", clientID: mine))?.mutedRooms.count == 1_000)
    }
}
