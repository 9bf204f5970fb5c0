import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// `push-worker run` with APNs certificate auth (`APNS_CERT_*`): refused configurations, and delivery over the
/// push simulator's mutual-TLS listener with the client certificate the simulator issued.
@Suite(.serialized) struct WorkerCertificateAuthTests {
    static let password = "cert-key-passphrase-7"

    @Test func tokenAndCertificateVariablesTogetherStopTheStartWithOneLine() async throws {
        let worker = try workerProcess(environment: [
            "APNS_KEY_FILE": "/k.p8", "APNS_KEY_ID": "ABC123DEFG", "APNS_TEAM_ID": "TEAM123456",
            "APNS_CERT_FILE": "/c.pem", "APNS_CERT_KEY_FILE": "/k.pem", "APNS_TOPIC": "com.example.chat",
        ])
        #expect(await worker.exitStatus() == 3)
        let lines = worker.stderr.lines
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("push-worker: invalid APNS_CERT_FILE: set either APNS_KEY_FILE") == true)
    }

    @Test func anUnreadableClientKeyStopsTheStartNamingItsVariable() async throws {
        let certificate = FileManager.default.temporaryDirectory.appendingPathComponent("cert-\(UUID().uuidString).pem")
        try Data("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n".utf8).write(to: certificate)
        defer { try? FileManager.default.removeItem(at: certificate) }
        let worker = try workerProcess(environment: [
            "APNS_CERT_FILE": certificate.path, "APNS_CERT_KEY_FILE": "/nonexistent/key.pem",
            "APNS_CERT_KEY_PASSWORD": Self.password, "APNS_TOPIC": "com.example.chat",
        ])
        #expect(await worker.exitStatus() == 3)
        // The start-up log line (configuration, password redacted) comes first; the refusal is the last line.
        #expect(
            worker.stderr.lines.last
                == "push-worker: invalid APNS_CERT_KEY_FILE: cannot read the client key file /nonexistent/key.pem")
        #expect(!worker.stderr.contains(Self.password))
    }

    @Test(arguments: ["curl", "nghttp2"])
    func aWorkerWithAnAPNsClientCertificateDeliversOverMutualTLS(transport: String) async throws {
        let simulator = try await PushSimulator.start()
        let issued = try await simulator.apnsClientCertificate(password: Self.password)
        let (broker, bootstrap) = try await startDevBroker()
        let worker = try workerProcess(environment: [
            "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "KAFKA_SESSION_TIMEOUT_MS": "6000",
            "KAFKA_HEARTBEAT_INTERVAL_MS": "300", "APNS_URL": simulator.mutualTLSBaseURL,
            "APNS_SANDBOX_URL": simulator.mutualTLSBaseURL, "APNS_CERT_FILE": issued.certificateFile,
            "APNS_CERT_KEY_FILE": issued.keyFile, "APNS_CERT_KEY_PASSWORD": Self.password,
            "APNS_TOPIC": "com.example.chat", "PUSH_CA_FILE": simulator.endpoint.caFile, "PUSH_HTTP_PORT": "0",
            "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_WORKER_ID": "worker-cert", "PUSH_SHUTDOWN_GRACE_SECONDS": "5",
            "PUSH_HTTP_TRANSPORT": transport,
        ])
        let kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        let producer = try KafkaProducer(configuration: kafka)
        let count = 3
        for index in 0..<count {
            _ = try await producer.send(
                KafkaProducerRecord(
                    topic: "chat.messages", key: Array("r-1".utf8),
                    value: Array(
                        ChatEvents.text(index, room: "r-1", devices: [.apns(token: String(format: "%064x", index + 1))])
                            .utf8)))
        }
        let receipts = try await Self.receipts(kafka: kafka, count: count, within: .seconds(90))
        worker.signal(SIGTERM)
        #expect(await worker.exitStatus() == 0)
        _ = await producer.close(timeout: .seconds(5))
        _ = try? await broker.terminate()
        let requests = try await simulator.requests()
        await simulator.stop()

        #expect(receipts.map { $0["status"]?.stringValue } == Array(repeating: "delivered", count: count))
        #expect(requests.count == count)
        #expect(requests.allSatisfy { $0.clientCertificate && $0.headers["authorization"] == nil })
        #expect(!worker.stderr.contains(Self.password))
        if receipts.count != count { Issue.record("worker log: \(worker.stderr.text.suffix(3000))") }
    }

    /// Receipts (both partitions, from the start) until `count` arrived or `limit` passed.
    static func receipts(kafka: KafkaConfiguration, count: Int, within limit: Duration) async throws -> [JSONValue] {
        let reader = try KafkaConsumer(configuration: kafka.merging(KafkaConfiguration(["group.id": "cert-reader"])))
        try await reader.assign([
            TopicPartition("push.receipts", 0): .beginning, TopicPartition("push.receipts", 1): .beginning,
        ])
        var receipts: [JSONValue] = []
        let deadline = ContinuousClock.now + limit
        while receipts.count < count, ContinuousClock.now < deadline {
            receipts += try await reader.poll(maxRecords: 100, timeout: .milliseconds(200)).compactMap {
                try? JSONParser.parse($0.value)
            }
        }
        _ = await reader.close(timeout: .seconds(5))
        return receipts
    }
}
