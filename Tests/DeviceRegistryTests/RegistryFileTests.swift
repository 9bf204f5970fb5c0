import DeviceRegistry
import PushCore
import Testing

/// `render --devices`: a JSONL file of subscription and client-settings records, read into a memory store.
@Suite struct RegistryFileTests {
    static let token = String(repeating: "a1", count: 32)
    static let newer = String(repeating: "a2", count: 32)

    @Test func subscriptionsAndSettingsAreAppliedInOrderAndBlankLinesSkipped() throws {
        let lines = [
            #"{"appID": "A", "clientId": "aaa", "type": "ios", "token": "\#(Self.token)", "deviceId": "D1"}"#, "",
            #"{"appID": "A", "clientId": "aaa", "type": "ios", "token": "\#(Self.newer)", "deviceId": "D1"}"#,
            #"{"appID": "A", "clientId": "aaa", "mute": ["room-1"], "badge": 3}"#, "  ",
        ]
        let store = MemoryDeviceStore()
        try RegistryFile.load(Array(lines.joined(separator: "\n").utf8), into: store)
        let client = ClientKey(appID: "A", clientID: "aaa")
        #expect(store.subscriptions(of: client).map(\.token) == [Self.newer])
        #expect(store.settings(of: client)?.mutedRooms == ["room-1"])
        #expect(store.settings(of: client)?.badge == 3)
    }

    @Test(arguments: [
        ("not json", "line 2: bad_value: not a JSON object"),
        (#"{"appID": "A", "clientId": "c", "type": "ios", "token": "zz", "deviceId": "D"}"#, "line 2: bad_token"),
        (#"{"appID": "A", "mute": ["r"]}"#, "line 2: bad_value"),
    ])
    func theFirstBadLineStopsTheLoadNamingItsNumber(line: String, prefix: String) {
        let first = #"{"appID": "A", "clientId": "aaa", "type": "ios", "token": "\#(Self.token)", "deviceId": "D1"}"#
        #expect {
            try RegistryFile.load(Array("\(first)\n\(line)\n".utf8), into: MemoryDeviceStore())
        } throws: { error in
            (error as? RegistryFile.LineError)?.description.hasPrefix(prefix) == true
        }
    }

    @Test func windowsLineEndsLoadTheSameAndBytesThatAreNotUTF8StopTheLoad() throws {
        let first = #"{"appID": "A", "clientId": "aaa", "type": "ios", "token": "\#(Self.token)", "deviceId": "D1"}"#
        let second = #"{"appID": "A", "clientId": "aaa", "mute": ["room-1"]}"#
        let store = MemoryDeviceStore()
        try RegistryFile.load(Array("\(first)\r\n\r\n\(second)\r\n".utf8), into: store)
        #expect(store.subscriptions(of: ClientKey(appID: "A", clientID: "aaa")).map(\.token) == [Self.token])
        #expect(store.settings(of: ClientKey(appID: "A", clientID: "aaa"))?.mutedRooms == ["room-1"])
        #expect {
            try RegistryFile.load(Array("\(first)\r\n".utf8) + [0x7B, 0xFF, 0x7D], into: MemoryDeviceStore())
        } throws: { error in
            (error as? RegistryFile.LineError)?.description == "line 2: bad_value: not UTF-8 (byte 2)"
        }
    }
}
