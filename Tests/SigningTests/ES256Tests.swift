import Essentials
import Foundation
import TestSupport
import Testing

@testable import Signing

@Suite struct ES256Tests {
    @Test func signaturesAreAlways64Bytes() throws {
        let pem = try TestKeys.p256.get()
        let key = try ES256Key(pem: pem)
        for index in 0..<20 {
            #expect(try key.sign(Array("message \(index)".utf8)).count == 64)
        }
    }

    @Test func shortSignatureComponentsAreLeftPadded() throws {
        // SEQUENCE { INTEGER 0x01, INTEGER 0x00FF (leading zero for the sign bit) }
        let der: [UInt8] = [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0xFF]
        let raw = try ES256Key.rawSignature(fromDER: der)
        #expect(raw == [UInt8](repeating: 0, count: 31) + [0x01] + [UInt8](repeating: 0, count: 31) + [0xFF])
    }

    @Test func rejectsGarbageDER() {
        #expect(throws: SigningError.self) { try ES256Key.rawSignature(fromDER: [0x30, 0x01]) }
    }

    @Test func refusesKeysOfAnotherTypeOrCurve() throws {
        let rsa = try TestKeys.rsa.get()
        let p384 = try TestKeys.p384.get()
        #expect(throws: SigningError(.wrongKeyType, "the ES256 key is not an EC key; ES256 needs a P-256 key")) {
            try ES256Key(pem: rsa)
        }
        #expect(throws: SigningError(.wrongKeyType, "the ES256 key is an EC key on another curve than P-256")) {
            try ES256Key(pem: p384)
        }
    }

    @Test func unreadableKeyErrorsNeverEchoTheKeyText() throws {
        let pem = try TestKeys.p256.get()
        let damaged = pem.replacingOccurrences(of: "\n", with: "\nA", options: [], range: pem.range(of: "\n"))
        do {
            _ = try ES256Key(pem: damaged, label: "APNS_KEY_FILE")
            Issue.record("a damaged key loaded")
        } catch {
            #expect(error.kind == .unreadableKey)
            #expect(error.message.hasPrefix("APNS_KEY_FILE is not a readable PEM private key"))
            let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? "-"
            #expect(!error.message.contains(body.prefix(16)))
        }
    }
}

@Suite struct VAPIDTokenTests {
    @Test func theTokenIsES256WithAudienceExpiryAndSubjectAndVerifiesWithTheExportedKey() throws {
        let key = try ES256Key(pem: try TestKeys.p256.get())
        let token = try JSONWebToken.vapid(
            key: key, audience: "https://push.example.net", expiresAt: 1_795_996_800, subject: "mailto:ops@example.com")
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        #expect(
            Base64URL.decode(parts[0]).map { String(decoding: $0, as: UTF8.self) } == #"{"alg":"ES256","typ":"JWT"}"#)
        #expect(
            Base64URL.decode(parts[1]).map { String(decoding: $0, as: UTF8.self) }
                == #"{"aud":"https://push.example.net","exp":1795996800,"sub":"mailto:ops@example.com"}"#)
        #expect(Base64URL.decode(parts[2])?.count == 64)
        let point = try key.publicKey()
        #expect(point.count == 65 && point[0] == 0x04)
        // The exported point is the key's: ECDH with it from a fresh key agrees with ECDH the other way round.
        let other = try P256Key.generate()
        let mine = try P256Point(uncompressed: point)
        #expect(try other.sharedSecret(with: mine).count == 32)
    }
}
