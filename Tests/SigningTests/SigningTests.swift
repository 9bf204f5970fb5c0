import Foundation
import TestSupport
import Testing

@testable import Signing

@Suite struct Base64URLTests {
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func encodesRFC4648VectorsWithoutPadding(input: String, expected: String) {
        #expect(Base64URL.encode(Array(input.utf8)) == expected)
    }

    @Test func usesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }
}

@Suite struct ES256Tests {
    @Test func apnsProviderTokenHasAppleHeaderAndClaimsAndVerifies() throws {
        let pem = try TestKeys.p256.get()
        let key = try ES256Key(pem: pem)
        let jwt = try JSONWebToken.apnsProviderToken(
            key: key, keyId: "ABC123DEFG", teamId: "DEF123GHIJ", issuedAt: 1_700_000_000)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        #expect(decode(parts[0]) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(decode(parts[1]) == #"{"iat":1700000000,"iss":"DEF123GHIJ"}"#)
        #expect(try KeyFixtures.pythonVerifies(jwt: jwt, pem: pem))
    }

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

@Suite struct RS256Tests {
    @Test func googleAssertionHasTheGrantClaimsAndVerifies() throws {
        let pem = try TestKeys.rsa.get()
        let key = try RS256Key(pem: pem)
        let jwt = try JSONWebToken.googleAssertion(
            key: key, keyId: "k1", issuer: "sa@p.iam.gserviceaccount.com", scope: "s", audience: "https://t/token",
            issuedAt: 100)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(decode(parts[0]) == #"{"alg":"RS256","kid":"k1","typ":"JWT"}"#)
        #expect(
            decode(parts[1])
                == #"{"aud":"https://t/token","exp":3700,"iat":100,"iss":"sa@p.iam.gserviceaccount.com","scope":"s"}"#)
        #expect(try KeyFixtures.pythonVerifies(jwt: jwt, pem: pem))
    }

    @Test func refusesAnECKey() throws {
        let p256 = try TestKeys.p256.get()
        #expect(throws: SigningError.self) { try RS256Key(pem: p256) }
    }
}

/// The text of a base64url JWT segment.
private func decode(_ segment: String) -> String? {
    var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }
}
