import Observability
import StatusServer
import Testing

@testable import Configuration

/// `PUSH_INGRESS_TLS_CERT_FILE` and `PUSH_INGRESS_TLS_KEY_FILE`: both or neither, each a PEM file.
@Suite struct IngressTLSConfigurationTests {
    static let base = ["PUSH_INGRESS_KEYS": "SampleApp:k1"]
    static let pem = """
        -----BEGIN CERTIFICATE-----
        MIIB
        -----END CERTIFICATE-----
        -----BEGIN PRIVATE KEY-----
        c2VjcmV0LWtleS1ieXRlcw==
        -----END PRIVATE KEY-----
        """

    func load(_ variables: [String: String], file: String = pem) throws(InvalidSetting) -> IngressConfiguration {
        let files = MemoryFile()
        files.write(file, version: 1)
        return try IngressConfiguration.load(
            environment: Self.base.merging(variables) { $1 }, configFile: nil, files: files)
    }

    @Test func withoutEitherTheIngressSpeaksPlainHTTP() throws {
        #expect(try load([:]).server.tls == nil)
    }

    @Test func withBothTheServerHasTheCertificateAndTheKeyStaysRedacted() throws {
        let configuration = try load([
            "PUSH_INGRESS_TLS_CERT_FILE": "/tls/tls.crt", "PUSH_INGRESS_TLS_KEY_FILE": "/tls/tls.key",
        ])
        let tls = try #require(configuration.server.tls)
        #expect(tls.certificatePEM.contains("BEGIN CERTIFICATE"))
        #expect(tls.keyPEM.revealed.contains("c2VjcmV0LWtleS1ieXRlcw=="))
        #expect(configuration.description.contains("(TLS)"))
        #expect(!configuration.description.contains("c2VjcmV0LWtleS1ieXRlcw=="))
        #expect("\(tls.keyPEM)" == "<redacted>")
    }

    @Test(arguments: [
        (
            ["PUSH_INGRESS_TLS_CERT_FILE": "/tls/tls.crt"], "PUSH_INGRESS_TLS_KEY_FILE",
            "is required with PUSH_INGRESS_TLS_CERT_FILE"
        ),
        (
            ["PUSH_INGRESS_TLS_KEY_FILE": "/tls/tls.key"], "PUSH_INGRESS_TLS_CERT_FILE",
            "is required with PUSH_INGRESS_TLS_KEY_FILE"
        ),
    ])
    func onlyOneOfThemIsRefusedNamingTheOther(variables: [String: String], variable: String, reason: String) {
        let error = #expect(throws: InvalidSetting.self) { try load(variables) }
        #expect(error?.variable == variable)
        #expect(error?.reason == reason)
    }

    @Test func aFileWithoutPEMIsRefusedNamingItsVariable() {
        let both = ["PUSH_INGRESS_TLS_CERT_FILE": "/tls/tls.crt", "PUSH_INGRESS_TLS_KEY_FILE": "/tls/tls.key"]
        let certificate = #expect(throws: InvalidSetting.self) { try load(both, file: "not a certificate") }
        #expect(certificate?.variable == "PUSH_INGRESS_TLS_CERT_FILE")
        let key = #expect(throws: InvalidSetting.self) {
            try load(both, file: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
        }
        #expect(key?.variable == "PUSH_INGRESS_TLS_KEY_FILE")
        #expect(key?.reason == "/tls/tls.key holds no PEM private key")
    }
}
