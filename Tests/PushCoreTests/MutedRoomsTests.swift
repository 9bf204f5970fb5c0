import PushCore
import Testing

@Suite struct MutedRoomsTests {
    @Test func aRoomIsMutedOnlyInTheBytesItWasMutedIn() {
        let rooms = MutedRooms(["caf\u{E9}", "r-1", "zz"])
        #expect(rooms.contains("caf\u{E9}"))
        #expect(!rooms.contains("cafe\u{301}"))
        #expect(rooms.contains("r-1"))
        #expect(rooms.contains("zz"))
        #expect(!rooms.contains("r-"))
        #expect(!rooms.contains("r-10"))
        #expect(!rooms.contains(""))
        #expect(!MutedRooms().contains("r-1"))
    }

    @Test func eachRoomIsKeptOnceInByteOrder() {
        let rooms = MutedRooms(["b", "caf\u{E9}", "a", "b", "cafe\u{301}", "caf\u{E9}"])
        #expect(rooms.count == 4)
        #expect(rooms.rooms.map { Array($0.utf8) } == ["a", "b", "cafe\u{301}", "caf\u{E9}"].map { Array($0.utf8) })
        #expect(rooms == MutedRooms(rooms.rooms.reversed()))
    }

    @Test(arguments: [0, 1, 2, 3, 7, 100, 1000])
    func everyRoomOfAListIsFoundAndNoOther(count: Int) {
        let rooms = MutedRooms((0..<count).map { "room-\($0 * 2)" })
        #expect(rooms.count == count)
        for index in 0..<count {
            #expect(rooms.contains("room-\(index * 2)"))
            #expect(!rooms.contains("room-\(index * 2 + 1)"))
        }
    }

    @Test func theStorageIsTheRoomsBytesFourBytesARoomAndTwoArrayHeaders() {
        let rooms = MutedRooms((0..<1000).map { "room-\(1000 + $0)" })
        #expect(rooms.storageBytes >= 1000 * (9 + 4) + 2 * 32)
        #expect(rooms.storageBytes <= 1000 * (9 + 4) + 2 * 32 + 64)
        #expect(MutedRooms().storageBytes == 0)
    }
}
