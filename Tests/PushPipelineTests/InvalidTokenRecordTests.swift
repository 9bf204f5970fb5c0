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
