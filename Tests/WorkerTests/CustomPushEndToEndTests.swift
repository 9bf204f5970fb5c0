import Essentials
import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import Observability
import PushCore
import TestSupport
import Testing

@testable import Configuration
@testable import IngressServer

/// `push2clients` through every real part: the ingress over HTTP, the dev broker over TCP, `push-worker run` with
/// the registry, and the push simulator over HTTP/2, which records what it received.
@Suite(.serialized) struct CustomPushEndToEndTests {
    static let apnsToken = String(repeating: "c1", count: 32)
    static let fcmToken = "fcm-token-of-user001"

    @Test func aCustomPushPostedToTheIngressReachesEveryDeviceOfItsClients() async throws {
        let simulator = try await PushSimulator.start()
        let apns = try await simulator.apnsCredentials()
        let fcm = try await simulator.serviceAccountFile()
        let (broker, bootstrap) = try await startDevBroker()
        let kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        let producer = try KafkaProducer(configuration: kafka)
        for (key, value) in [
            ("SampleApp/user001/ios/D1", #""type": "ios", "token": "\#(Self.apnsToken)", "deviceId": "D1""#),
            ("SampleApp/user001/fcm/P1", #""type": "fcm", "token": "\#(Self.fcmToken)", "deviceId": "P1""#),
        ] {
            let subscription = #"{"appID": "SampleApp", "clientId": "user001", \#(value)}"#
            _ = try await producer.send(
                KafkaProducerRecord(topic: "push.devices", key: Array(key.utf8), value: Array(subscription.utf8)))
        }
        _ = await producer.close(timeout: .seconds(5))
        let ingress = try IngressServer.start(
            configuration: try IngressConfiguration.load(
                environment: [
                    "PUSH_INGRESS_PORT": "0", "PUSH_INGRESS_HOST": "127.0.0.1", "PUSH_INGRESS_TOPIC": "chat.messages",
                    "PUSH_INGRESS_KEYS": "SampleApp:the-key", "KAFKA_BOOTSTRAP_SERVERS": bootstrap,
                ], configFile: nil),
            registry: MetricsRegistry(), logger: Logger(label: "t", level: .critical))
        let body =
            #"{"clients": ["user001", "user002"], "payload": {"type": "promo", "alert": "Your order shipped", "title": "Order", "#
            + #""badge": 4, "sound": "default", "icon": "ic_box", "collapseKey": "orders", "orderId": "o-1"}}"#
        let port = ingress.port
        let reply = try await Task.detached {
            try LoopbackClient.post(
                port: port, "/push/push2clients", body: body, headers: ["IM-API-KEY: the-key"], timeoutSeconds: 30)
        }.value
        await ingress.stop(answerBudget: .seconds(15))
        #expect(reply.status == 200)
        #expect(reply.body == #"{"RC":0,"RM":"OK","result":{}}"#)

        let worker = try workerProcess(
            environment: EndToEnd.workerEnvironment(bootstrap: bootstrap, simulator: simulator, apns: apns, fcm: fcm)
                .merging(["PUSH_WORKER_ID": "worker-custom"]) { $1 })
        let receipts = try await readRecords(kafka, topic: "push.receipts", count: 3, within: .seconds(90))
        let requests = try await simulator.requests()
        worker.signal(SIGTERM)
        let status = await worker.exitStatus()
        _ = try? await broker.terminate()
        await simulator.stop()
        #expect(status == 0)

        let outline = receipts.compactMap { try? JSONParser.parse($0.value) }.map { receipt in
            [receipt["type"], receipt["userId"], receipt["platform"], receipt["status"], receipt["reason"]]
                .map { $0?.stringValue ?? "-" }.joined(separator: " ")
        }
        #expect(
            outline.sorted() == [
                "promo user001 apns delivered -", "promo user001 fcm delivered -",
                "promo user002 none skipped no_devices",
            ])
        #expect(try schemaViolations(receipts.map(\.value), schema: "receipt.schema.json") == nil)
        let apnsRequest = try #require(requests.first { $0.path == "/3/device/\(Self.apnsToken)" })
        let aps = try JSONParser.parse(Array(apnsRequest.body.utf8))
        #expect(aps["aps"]?["alert"]?["title"]?.stringValue == "Order")
        #expect(aps["aps"]?["alert"]?["body"]?.stringValue == "Your order shipped")
        #expect(aps["aps"]?["badge"] == .number("4"))
        #expect(aps["payload"]?["orderId"]?.stringValue == "o-1")
        let fcmRequest = try #require(requests.first { $0.path.hasSuffix("messages:send") })
        let message = try #require(try JSONParser.parse(Array(fcmRequest.body.utf8))["message"])
        #expect(message["token"]?.stringValue == Self.fcmToken)
        #expect(message["notification"]?["body"]?.stringValue == "Your order shipped")
        #expect(message["android"]?["collapse_key"]?.stringValue == "orders")
        #expect(message["android"]?["notification"]?["icon"]?.stringValue == "ic_box")
        #expect(message["data"]?["type"]?.stringValue == "promo")
    }
}
