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

    /// The `apns-id` is the UUID of `<message id> NUL <platform> NUL <token>`, written into a buffer of its own: the
    /// same id as the name made as text, for empty parts, non-ASCII ones and long ones (a temporary buffer on the heap).
    @Test(arguments: [("m-1", "token"), ("", ""), ("m-é-✓", "tøken"), (String(repeating: "m", count: 5_000), "t")])
    func anAPNsIDIsTheUUIDOfItsNameAsText(messageID: String, token: String) {
        for platform in [Platform.apns, .fcm, .web] {
            let device = Device(platform: platform, token: token)
            #expect(
                DeterministicUUID.apnsID(messageID: messageID, device: device)
                    == DeterministicUUID.make(from: "\(messageID)\u{0}\(platform.rawValue)\u{0}\(token)"))
        }
        #expect(
            DeterministicUUID.apnsID(messageID: "m-1", device: Device(platform: .apns, token: "token"))
                == "d0a79bed-22cc-8cd5-8f09-cd5c838432b8")
    }
}
