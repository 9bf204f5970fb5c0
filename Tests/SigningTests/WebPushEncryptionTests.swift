import Essentials
import Testing

@testable import Signing

@Suite struct WebPushEncryptionTests {
    /// RFC 8291 Appendix A.
    enum Example {
        static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
        static let senderPrivateKey = decoded("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
        static let senderPublicKey = decoded(
            "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
        static let p256dh = decoded(
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
        static let auth = decoded("BTBZMqHH6r4Tts7J_aSIgg")
        static let salt = decoded("DGv6ra1nlYgDCS1FRnbzlw")
        static let message = decoded(
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        )

        static func decoded(_ text: String) -> [UInt8] { Base64URL.decode(text) ?? [] }
    }

    @Test func reproducesRFC8291AppendixAByteForByte() throws {
        let message = try WebPushEncryption.encrypt(
            Example.plaintext, p256dh: Example.p256dh, auth: Example.auth, senderPrivateKey: Example.senderPrivateKey,
            salt: Example.salt)
        #expect(Base64URL.encode(message) == Base64URL.encode(Example.message))
        #expect(try P256Key.privateKey(scalar: Example.senderPrivateKey).publicPoint() == Example.senderPublicKey)
    }

    @Test func eachMessageHasItsOwnSaltAndSenderKeyInTheHeader() throws {
        let first = try WebPushEncryption.encrypt(Example.plaintext, p256dh: Example.p256dh, auth: Example.auth)
        let second = try WebPushEncryption.encrypt(Example.plaintext, p256dh: Example.p256dh, auth: Example.auth)
        #expect(first.count == 86 + Example.plaintext.count + 1 + 16)
        #expect(first.prefix(16) != second.prefix(16))
        #expect(Array(first[16..<21]) == [0, 0, 0x10, 0, 65])
        #expect(first[21] == 0x04)
        #expect(first[21..<86] != second[21..<86])
    }

    @Test func aSubscriptionsPointIsReadOnceAndAPointOffTheCurveIsRefused() throws {
        var other = try P256Key.generate().publicPoint()
        _ = try WebPushEncryption.encrypt(Example.plaintext, p256dh: other, auth: Example.auth)
        let kept = try WebPushEncryption.peer(other)
        _ = try WebPushEncryption.encrypt(Example.plaintext, p256dh: other, auth: Example.auth)
        #expect(try WebPushEncryption.peer(other) === kept)
        other[64] ^= 1
        #expect(throws: SigningError.self) { try WebPushEncryption.peer(other) }
    }

    @Test func theLargestPlaintextFillsTheRecordAndOneByteMoreIsRefused() throws {
        let largest = [UInt8](repeating: 0x61, count: WebPushEncryption.maximumPlaintextBytes)
        let message = try WebPushEncryption.encrypt(largest, p256dh: Example.p256dh, auth: Example.auth)
        #expect(message.count == 4096)
        #expect(WebPushEncryption.maximumPlaintextBytes == 3993)
        #expect(throws: SigningError(.signingFailed, "the plaintext is more than 3993 bytes")) {
            try WebPushEncryption.encrypt(largest + [0x61], p256dh: Example.p256dh, auth: Example.auth)
        }
    }

    @Test func aPointOffTheCurveIsRefused() {
        var offCurve = Example.p256dh
        offCurve[64] ^= 1
        #expect(throws: SigningError.self) {
            try WebPushEncryption.encrypt(Example.plaintext, p256dh: offCurve, auth: Example.auth)
        }
        #expect(throws: SigningError.self) {
            try WebPushEncryption.encrypt(
                Example.plaintext, p256dh: [4] + [UInt8](repeating: 0, count: 64), auth: Example.auth)
        }
    }

    @Test func anAuthSecretOrSaltOfAnotherLengthIsRefused() {
        #expect(throws: SigningError(.signingFailed, "the auth secret and the salt must be 16 bytes")) {
            try WebPushEncryption.encrypt(Example.plaintext, p256dh: Example.p256dh, auth: [1, 2, 3])
        }
    }
}
