import Testing

@testable import Observability

@Suite("Secrets and device tokens never reach logs")
struct RedactionTests {
    let key = Secret("-----BEGIN PRIVATE KEY-----MIGTAgEAMBMGByqGSM49")

    @Test func secretPrintsAsRedactedEverywhere() {
        #expect(key.description == "<redacted>")
        #expect("\(key)" == "<redacted>")
        #expect(String(reflecting: key) == "<redacted>")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("PRIVATE"))
        #expect(key.revealed.hasPrefix("-----BEGIN"))
    }

    /// `sha256:` and the SHA-256 of the token below, as receipts carry it.
    let token = String(repeating: "ab12", count: 16)
    let tokenHash = "sha256:2a1b4a8a3f2f0c7b2c7f0b5e0c8d9f6a1e3d5c7b9a8f6e4d2c0b1a3f5e7d9c8b"

    @Test func logLinesCarryNeitherSecretsNorTokens() throws {
        let lines = try captureLines { sink in
            let logger = Logger(label: "test", sink: sink)
            logger.info("signed", metadata: ["apns.key": .redacted(key), "device.token": .token(hash: tokenHash)])
        }
        #expect(lines.count == 1)
        #expect(!lines[0].contains("PRIVATE"))
        #expect(!lines[0].contains(token))
        #expect(!lines[0].contains(tokenHash))
        #expect(lines[0].contains(#""apns.key":"<redacted>""#))
        #expect(lines[0].contains(#""device.token":"sha256:2a1b4a8a3f2f""#))
    }

    @Test func tokenFingerprintKeepsTwelveHexDigitsOfTheHash() {
        #expect(TokenFingerprint.of(tokenHash: tokenHash) == "sha256:2a1b4a8a3f2f")
    }

    @Test(arguments: [
        String(repeating: "ab12", count: 16), "sha256:", "sha256:2a1b", "sha256:" + String(repeating: "Z", count: 64),
        "SHA256:" + String(repeating: "a", count: 64), "sha256:" + String(repeating: "a", count: 65),
    ])
    func anythingButATokenHashIsRedacted(text: String) {
        #expect(TokenFingerprint.of(tokenHash: text) == "<redacted>")
    }
}
