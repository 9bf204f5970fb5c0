import PushCore
import TestSupport
import Testing

@Suite struct RegistryKeyTests {
    @Test(arguments: [
        ("", ""),
        ("SampleApp", "SampleApp"),
        ("a-b.c_d~e", "a-b.c_d~e"),
        ("a/b", "a%2Fb"),
        ("100%", "100%25"),
        ("a b+c", "a%20b%2Bc"),
        ("김", "%EA%B9%80"),
        ("%2F", "%252F"),
    ])
    func encodesEveryByteOutsideTheUnreservedSet(part: String, encoded: String) {
        #expect(RegistryKey.encode(part) == encoded)
        #expect(RegistryKey.decode(Substring(encoded)) == part)
    }

    @Test func theDefaultAppIsAnEmptyFirstPart() {
        let key = DeviceKey(appID: "", clientID: "aaa", type: .ios, deviceID: "D1")
        #expect(key.description == "/aaa/ios/D1")
        #expect(DeviceKey(text: "/aaa/ios/D1") == key)
        #expect(ClientKey(appID: "", clientID: "aaa").description == "/aaa")
    }

    @Test func slashesAndPercentsInsidePartsKeepThePartsApart() {
        let key = DeviceKey(appID: "my/app", clientID: "50%/x", type: .iosVoip, deviceID: "d/1")
        #expect(key.description == "my%2Fapp/50%25%2Fx/ios-voip/d%2F1")
        #expect(DeviceKey(text: key.description) == key)
    }

    @Test func decodingAcceptsLowercaseHexAndRawReservedCharacters() {
        #expect(RegistryKey.decode("a%2fb") == "a/b")
        #expect(RegistryKey.decode("a@b:c") == "a@b:c")
    }

    @Test(arguments: ["%", "%2", "%zz", "%G0", "a/b", "%FF", "%C3%28", "%ED%A0%80"])
    func malformedEscapesAndInvalidUTF8AreRejected(encoded: String) {
        #expect(RegistryKey.decode(Substring(encoded)) == nil)
    }

    @Test(arguments: [
        "", "app/client", "app/client/ios", "app/client/ios/d/extra", "app/client/blackberry/d", "a/%zz/ios/d",
    ])
    func deviceKeysOfTheWrongShapeAreRejected(text: String) {
        #expect(DeviceKey(text: text) == nil)
    }

    @Test(arguments: ["", "app", "a/b/c", "%/b"])
    func clientKeysOfTheWrongShapeAreRejected(text: String) {
        #expect(ClientKey(text: text) == nil)
    }

    @Test func randomPartsRoundTripAndRandomBytesNeverTrap() {
        var generator = SeededGenerator(seed: 22)
        let alphabet: [Character] = ["a", "Z", "0", "/", "%", " ", "-", "~", "é", "김", "😀", "\u{0}", "+", "?"]
        for _ in 0..<2_000 {
            let parts = (0..<4).map { _ in
                String(
                    (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                        alphabet[Int.random(in: alphabet.indices, using: &generator)]
                    })
            }
            let type = SubscriptionType.allCases[Int.random(in: 0..<SubscriptionType.allCases.count, using: &generator)]
            let key = DeviceKey(appID: parts[0], clientID: parts[1], type: type, deviceID: parts[3])
            #expect(DeviceKey(text: key.description) == key)
            let client = ClientKey(appID: parts[0], clientID: parts[2])
            #expect(ClientKey(text: client.description) == client)
        }
        let bytes: [UInt8] = Array("%/aZ09~-".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xFF]
        for _ in 0..<2_000 {
            let text = String(
                decoding: (0..<Int.random(in: 0...16, using: &generator)).map { _ in
                    bytes[Int.random(in: bytes.indices, using: &generator)]
                },
                as: UTF8.self)
            if let key = DeviceKey(text: text) { #expect(DeviceKey(text: key.description) == key) }
            if let key = ClientKey(text: text) { #expect(ClientKey(text: key.description) == key) }
        }
    }
}
