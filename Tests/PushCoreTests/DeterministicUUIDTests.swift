import PushCore
import Testing

@Suite struct DeterministicUUIDTests {
    @Test func deterministicUUIDsAreCanonicalAndStable() {
        let id = DeterministicUUID.make(from: "m-1\u{0}apns\u{0}token")
        #expect(id == DeterministicUUID.make(from: "m-1\u{0}apns\u{0}token"))
        #expect(id == "d0a79bed-22cc-8cd5-8f09-cd5c838432b8")  // the first 16 bytes of the SHA-256, version 8
        #expect(id != DeterministicUUID.make(from: "m-2\u{0}apns\u{0}token"))
        #expect(id.count == 36)
        #expect(id.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(Array(id)[14] == "8")
        #expect(id == id.lowercased())
    }
}
