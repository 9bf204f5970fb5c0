import Observability
import Testing

@testable import PipelineMetrics

@Suite("Device tokens reach logs only as fingerprints")
struct TokenFingerprintTests {
    /// `sha256:` and the SHA-256 of a token, as receipts carry it.
    let tokenHash = "sha256:2a1b4a8a3f2f0c7b2c7f0b5e0c8d9f6a1e3d5c7b9a8f6e4d2c0b1a3f5e7d9c8b"

    @Test func tokenFingerprintKeepsTwelveHexDigitsOfTheHash() {
        #expect(TokenFingerprint.of(tokenHash: tokenHash) == "sha256:2a1b4a8a3f2f")
    }

    @Test func tokenMetadataIsTheFingerprint() {
        #expect(LogMetadataValue.token(hash: tokenHash) == .string("sha256:2a1b4a8a3f2f"))
    }

    @Test(arguments: [
        String(repeating: "ab12", count: 16), "sha256:", "sha256:2a1b", "sha256:" + String(repeating: "Z", count: 64),
        "SHA256:" + String(repeating: "a", count: 64), "sha256:" + String(repeating: "a", count: 65),
    ])
    func anythingButATokenHashIsRedacted(text: String) {
        #expect(TokenFingerprint.of(tokenHash: text) == "<redacted>")
        #expect(LogMetadataValue.token(hash: text) == .string("<redacted>"))
    }
}
