import Foundation
import HTTPTypes
import Testing

@testable import HTTP2

@Suite("TLS client certificates")
struct ClientCertificateTests {
    @Test(arguments: [
        ("OpenSSL SSL_read: error:0A000418:SSL routines::tlsv1 alert unknown ca, errno 0", "tlsv1 alert unknown ca"),
        (
            "OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0",
            "tlsv13 alert certificate required"
        ),
        (
            "OpenSSL SSL_connect: error:0A000412:SSL routines::sslv3 alert bad certificate",
            "sslv3 alert bad certificate"
        ),
    ])
    func theServersTLSAlertIsFoundInLibcurlsErrorText(detail: String, alert: String) {
        #expect(TransferFailure.tlsAlert(in: detail) == alert)
    }

    @Test(arguments: [nil, "", "OpenSSL SSL_write: Broken pipe, errno 32", "Recv failure: Connection reset by peer"])
    func errorTextWithoutAnAlertNamesNone(detail: String?) {
        #expect(TransferFailure.tlsAlert(in: detail) == nil)
    }

    @Test func theDescriptionNamesTheFilesButNeverThePassword() {
        let certificate = ClientCertificate(certificateFile: "/c.pem", keyFile: "/k.pem", keyPassword: "hunter2")
        #expect(certificate.description == "certificate=/c.pem key=/k.pem password=<redacted>")
        #expect(!"\(certificate)".contains("hunter2"))
    }

    @Test func filesWithoutPEMOfTheirKindAreRefusedNamingTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("client-cert-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try Data("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n".utf8).write(
            to: URL(fileURLWithPath: certificate))
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: key))
        #expect(throws: HTTPError(.tls, "the client key file \(key) holds no PEM private key")) {
            try ClientCertificate(certificateFile: certificate, keyFile: key).validate()
        }
        #expect(throws: HTTPError(.tls, "the client certificate file \(key) holds no PEM certificate")) {
            try ClientCertificate(certificateFile: key, keyFile: certificate).validate()
        }
        #expect(throws: HTTPError(.tls, "cannot read the client key file /nonexistent/key.pem")) {
            try ClientCertificate(certificateFile: certificate, keyFile: "/nonexistent/key.pem").validate()
        }
    }
}
