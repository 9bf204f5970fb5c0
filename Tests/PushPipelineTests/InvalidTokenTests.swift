import PushPipeline
import Testing

@Suite struct InvalidTokenRecordTests {
    static let hash = "sha256:" + String(repeating: "ab", count: 32)
    static let record = InvalidTokenRecord(
        platform: "apns", token: "3f1c6a", tokenHash: hash, userId: "u-4", app: "com.example.chat",
        reason: "Unregistered", invalidSinceMillis: 1_795_953_600_250, messageId: "m-1000", worker: "pod-1")

    @Test func isKeyedByPlatformAndTokenHash() {
        #expect(Self.record.key == "apns:" + Self.hash)
    }

    @Test func roundTripsThroughItsJSON() throws {
        let json = String(decoding: Self.record.json(), as: UTF8.self)
        #expect(json.contains(#""invalidSince":"2026-11-29T12:00:00.250Z""#))
        #expect(InvalidTokenRecord(json: Self.record.json()) == Self.record)
        #expect(InvalidTokenRecord(json: Array("{}".utf8)) == nil)
        #expect(InvalidTokenRecord(json: []) == nil)
    }
}

@Suite struct KnownInvalidTokensTests {
    let hash = InvalidTokenRecordTests.hash

    @Test func aRecordMarksItsTokenDeadOnItsPlatformOnly() {
        var tokens = KnownInvalidTokens()
        let applied = tokens.apply(key: "fcm:" + hash, value: [1])
        #expect(applied)
        #expect(tokens.contains(platform: "fcm", tokenHash: hash))
        #expect(!tokens.contains(platform: "apns", tokenHash: hash))
        #expect(tokens.count == 1)
    }

    @Test func aTombstoneBringsTheTokenBack() {
        var tokens = KnownInvalidTokens()
        tokens.apply(key: "apns-voip:" + hash, value: [1])
        tokens.apply(key: "apns-voip:" + hash, value: [])
        #expect(!tokens.contains(platform: "apns-voip", tokenHash: hash))
        #expect(tokens.count == 0)
    }

    @Test(arguments: [
        "fcm", "fcm:", "web:" + InvalidTokenRecordTests.hash, "fcm:sha256:xyz",
        "fcm:md5:" + String(repeating: "0", count: 64),
        "fcm:sha256:" + String(repeating: "G", count: 64), "fcm:sha256:" + String(repeating: "A", count: 64),
    ])
    func keysNotOfTheFormAreIgnored(key: String) {
        var tokens = KnownInvalidTokens()
        let applied = tokens.apply(key: key, value: [1])
        #expect(!applied)
        #expect(tokens.count == 0)
    }
}
