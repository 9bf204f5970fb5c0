import Foundation
import IntegrationSupport
import Kafka
import Observability
import TestSupport
import Testing

@testable import Configuration
@testable import IngressServer

/// `push-worker ingress` answering TLS itself (libmicrohttpd over GnuTLS) with a certificate made by openssl for
/// the test; curl is the client, trusting only that certificate.
@Suite(.serialized) struct IngressTLSTests {
    /// A self-signed P-256 certificate for 127.0.0.1 and its key, in a fresh folder.
    static func makeCertificate() throws -> (folder: URL, certificate: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "ingress-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appending(path: "tls.crt").path
        let key = folder.appending(path: "tls.key").path
        let result = try ChildProcessResult.run(
            URL(filePath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out",
                certificate,
            ])
        guard result.status == 0 else { throw ToolFailure(output: result.stderr) }
        return (folder, certificate, key)
    }

    struct ToolFailure: Error { var output: String }

    @Test func overTLSAPushIsAcceptedAndPlainHTTPGetsNoAnswer() async throws {
        let (folder, certificate, key) = try Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("chat", partitions: 1)
        let ingress = try IngressServer.start(
            configuration: try IngressConfiguration.load(
                environment: [
                    "PUSH_INGRESS_PORT": "0", "PUSH_INGRESS_HOST": "127.0.0.1", "PUSH_INGRESS_TOPIC": "chat",
                    "PUSH_INGRESS_KEYS": "SampleApp:the-key", "KAFKA_BOOTSTRAP_SERVERS": cluster.bootstrapServers,
                    "PUSH_INGRESS_TLS_CERT_FILE": certificate, "PUSH_INGRESS_TLS_KEY_FILE": key,
                ], configFile: nil),
            registry: MetricsRegistry(), logger: Logger(label: "t", level: .critical))
        let url = "https://127.0.0.1:\(ingress.port)/push/push2clients?key=the-key"
        let body = #"{"clients": ["user001"], "payload": {"alert": "Hello"}}"#
        let secure = try await ChildProcessResult.run(
            URL(filePath: "/usr/bin/curl"),
            [
                "--silent", "--show-error", "--cacert", certificate, "--max-time", "30", "--write-out",
                "\n%{http_code} %{ssl_verify_result}", "--header", "Content-Type: application/json", "--data", body,
                url,
            ], within: .seconds(60))
        let plain = await Task.detached { [port = ingress.port] in
            try? LoopbackClient.post(
                port: port, "/push/push2clients", body: body, headers: ["IM-API-KEY: the-key"], timeoutSeconds: 10)
        }.value
        await ingress.stop(answerBudget: .seconds(15))
        #expect(secure.status == 0, "\(secure.stderr)")
        #expect(secure.stdout == #"{"RC":0,"RM":"OK","result":{}}"# + "\n200 0")
        #expect(plain?.status != 200)
    }
}
