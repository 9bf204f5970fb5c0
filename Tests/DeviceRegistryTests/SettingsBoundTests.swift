import DeviceRegistry
import PushCore
import Testing

/// A settings record keeps at most `RegistryRecordDecoder.maximumMutedRooms` muted rooms, with a counted warning
/// beyond, and the memory store's `bytes` counts what a record takes.
@Suite struct SettingsBoundTests {
    static func value(rooms: Int, notificationEnabled: Bool = true) -> [UInt8] {
        let list = (0..<rooms).map { "\"room-\(1000 + $0)\"" }.joined(separator: ",")
        return Array(
            #"{"appID": "A", "clientId": "c", "notificationEnabled": \#(notificationEnabled), "mute": [\#(list)]}"#.utf8
        )
    }

    static let key = Array("A/c".utf8)

    @Test func roomsBeyondTheBoundAreLeftOutAndTheRestOfTheRecordApplies() throws {
        let tables = RegistryTables(store: MemoryDeviceStore())
        let bound = RegistryRecordDecoder.maximumMutedRooms
        let error = try tables.applyClient(
            key: Self.key, value: Self.value(rooms: bound + 200, notificationEnabled: false))
        #expect(error?.reason.rawValue == "too_many_muted_rooms")
        #expect(error?.message == "mute: 200 rooms beyond the first \(bound) ignored")
        let settings = try #require(tables.store.settings(of: ClientKey(appID: "A", clientID: "c")))
        #expect(settings.notificationEnabled == false)
        #expect(settings.mutedRooms.count == bound)
        #expect(settings.mutedRooms.contains("room-1000"))
        #expect(settings.mutedRooms.contains("room-\(1000 + bound - 1)"))
        #expect(!settings.mutedRooms.contains("room-\(1000 + bound)"))
        #expect(
            tables.ignored.map { "\($0.key.topic) \($0.key.reason.rawValue) \($0.value)" } == [
                "clients too_many_muted_rooms 1"
            ])
    }

    @Test func aRecordWithinTheBoundIsAppliedWhole() throws {
        let tables = RegistryTables(store: MemoryDeviceStore())
        let bound = RegistryRecordDecoder.maximumMutedRooms
        #expect(try tables.applyClient(key: Self.key, value: Self.value(rooms: bound)) == nil)
        #expect(tables.store.settings(of: ClientKey(appID: "A", clientID: "c"))?.mutedRooms.count == bound)
        #expect(tables.ignored.isEmpty)
    }

    @Test func theBytesOfASettingsRecordAreItsRoomsArraysAndItsSlot() throws {
        let store = MemoryDeviceStore()
        let tables = RegistryTables(store: store)
        try tables.applyClient(key: Self.key, value: Self.value(rooms: 1000))
        // 1,000 rooms of 9 bytes, an end of 4 bytes each, two array headers, and the dictionary slot.
        let rooms = 1000 * 9 + 32 + 1000 * 4 + 32
        #expect(store.statistics.bytes >= rooms + 100)
        #expect(store.statistics.bytes <= rooms + 400)
        try tables.applyClient(key: Self.key, value: nil)
        #expect(store.statistics.bytes == 0)
    }
}
