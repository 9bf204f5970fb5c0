import PushPipeline
import Testing

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

    @Test func aWebSubscriptionCalledGoneIsKnownDead() {
        var tokens = KnownInvalidTokens()
        let applied = tokens.apply(key: "web:" + hash, value: [1])
        #expect(applied)
        #expect(tokens.contains(platform: "web", tokenHash: hash))
        #expect(!tokens.contains(platform: "fcm", tokenHash: hash))
    }

    @Test func aTombstoneBringsTheTokenBack() {
        var tokens = KnownInvalidTokens()
        tokens.apply(key: "apns-voip:" + hash, value: [1])
        tokens.apply(key: "apns-voip:" + hash, value: [])
        #expect(!tokens.contains(platform: "apns-voip", tokenHash: hash))
        #expect(tokens.count == 0)
    }

    @Test(arguments: [
        "fcm", "fcm:", "hms:" + InvalidTokenRecordTests.hash, "fcm:sha256:xyz",
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
