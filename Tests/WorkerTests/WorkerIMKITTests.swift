import Essentials
import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// The simulator, the dev broker and a producer of one test; the worker starts once the registry is written, so that
/// it reads both topics before it consumes a message.
final class IMKITRun {
    let simulator: PushSimulator
    let broker: DevBrokerProcess
    let bootstrap: String
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    private var worker: ChildProcess?

    init(beforeStart: (PushSimulator) async throws -> Void = { _ in }) async throws {
        simulator = try await PushSimulator.start()
        try await beforeStart(simulator)
        (broker, bootstrap) = try await startDevBroker()
        kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        producer = try KafkaProducer(configuration: kafka)
    }

    /// Writes one record (`value == nil`: a tombstone).
    func produce(_ topic: String, _ key: String, _ value: String?) async throws {
        _ = try await producer.send(
            KafkaProducerRecord(topic: topic, key: Array(key.utf8), value: value.map { Array($0.utf8) } ?? []))
    }

    func startWorker(id: String) async throws {
        let apns = try await simulator.apnsCredentials()
        let fcm = try await simulator.serviceAccountFile()
        worker = try workerProcess(
            environment: EndToEnd.workerEnvironment(bootstrap: bootstrap, simulator: simulator, apns: apns, fcm: fcm)
                .merging(["PUSH_WORKER_ID": id]) { $1 })
    }

    /// `push-worker devices list` of `client` in `SampleApp`, one line a device.
    func listed(_ client: String) async throws -> [String] {
        let result = try await ChildProcessResult.run(
            ChildProcess.built("push-worker"), ["devices", "list", "--app", "SampleApp", "--client", client],
            environment: ["KAFKA_BOOTSTRAP_SERVERS": bootstrap], within: .seconds(60))
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Stops the worker with SIGTERM and returns its exit status; then stops the rest.
    func stop() async -> Int32? {
        worker?.signal(SIGTERM)
        let status = await worker?.exitStatus()
        _ = await producer.close(timeout: .seconds(5))
        _ = try? await broker.terminate()
        await simulator.stop()
        return status
    }
}

/// `push-worker run` with the device registry and the client settings on the dev broker and the push simulator:
/// IMKIT messages on the input topic become sends to the registry's devices, and receipts say what was not sent.
@Suite(.serialized) struct WorkerIMKITTests {
    static let replacedToken = String(repeating: "a1", count: 32)
    static let currentToken = String(repeating: "a2", count: 32)
    static let fcmToken = "fcm-token-of-aaa"
    static let deadToken = String(repeating: "de", count: 32)

    static func subscription(_ client: String, _ type: String, _ device: String, token: String) -> (String, String?) {
        (
            "SampleApp/\(client)/\(type)/\(device)",
            #"{"appID": "SampleApp", "clientId": "\#(client)", "type": "\#(type)", "token": "\#(token)", "deviceId": "\#(device)"}"#
        )
    }

    @Test func anIMKITMessageGoesToTheRegistrysDevicesAndReceiptsSayWhoWasNotReached() async throws {
        let run = try await IMKITRun { simulator in
            _ = try await simulator.control(
                "POST", "/control/apns-unregister",
                body: "{\"tokens\": [\"\(Self.deadToken)\"], \"timestamp\": 1700000000000}")
        }
        let produce = run.produce
        let devices: [(String, String?)] = [
            Self.subscription("aaa", "ios", "D1", token: Self.replacedToken),
            Self.subscription("aaa", "fcm", "P1", token: Self.fcmToken),
            // The same type + deviceId: the token is replaced.
            Self.subscription("aaa", "ios", "D1", token: Self.currentToken),
            Self.subscription("bbb", "ios", "D2", token: String(repeating: "b2", count: 32)),
            // Unsubscribed.
            ("SampleApp/bbb/ios/D2", nil),
            Self.subscription("ccc", "ios", "D3", token: String(repeating: "c3", count: 32)),
            Self.subscription("ddd", "ios", "D4", token: String(repeating: "d4", count: 32)),
            Self.subscription("sss", "ios", "D5", token: String(repeating: "e5", count: 32)),
            // The provider calls this token dead: the worker unsubscribes it.
            Self.subscription("fff", "ios", "D7", token: Self.deadToken),
            // Ignored: the key names another device than the value.
            (
                "SampleApp/eee/ios/D9",
                Self.subscription("eee", "ios", "D6", token: String(repeating: "f6", count: 32)).1
            ),
        ]
        for (key, value) in devices { try await produce("push.devices", key, value) }
        try await produce(
            "push.clients", "SampleApp/ccc", #"{"appID": "SampleApp", "clientId": "ccc", "mute": ["demo-room"]}"#)
        try await produce(
            "push.clients", "SampleApp/ddd", #"{"appID": "SampleApp", "clientId": "ddd", "notificationEnabled": false}"#
        )
        try await produce(
            "chat.messages", "demo-room",
            #"{"_id": "imkit-1", "message": "lala", "room": "demo-room", "roomName": "Demo Room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "pushToClients": ["aaa", "bbb", "ccc", "ddd", "eee", "sss", "aaa", "fff"]}"#
        )
        try await produce(
            "chat.messages", "demo-room",
            #"{"_id": "imkit-2", "message": "hi", "room": "demo-room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "toClient": "aaa", "badge": 7, "alert": "SSS says hi"}"#
        )
        try await run.startWorker(id: "worker-imkit")
        let receipts = try await readRecords(run.kafka, topic: "push.receipts", count: 9, within: .seconds(90))
        let requests = try await run.simulator.requests()
        // The dead token's tombstone was acknowledged with its receipt: the registry no longer lists fff's device.
        let deadClientDevices = try await run.listed("fff")
        let liveClientDevices = try await run.listed("aaa")
        #expect(await run.stop() == 0)

        let values = receipts.compactMap { try? JSONParser.parse($0.value) }
        let outline = values.map { receipt in
            [receipt["messageId"], receipt["userId"], receipt["platform"], receipt["status"], receipt["reason"]]
                .map { $0?.stringValue ?? "-" }.joined(separator: " ")
        }
        #expect(
            outline.sorted() == [
                "imkit-1 aaa apns delivered -", "imkit-1 aaa fcm delivered -", "imkit-1 bbb none skipped no_devices",
                "imkit-1 ccc apns skipped muted", "imkit-1 ddd apns skipped notifications_off",
                "imkit-1 eee none skipped no_devices", "imkit-1 fff apns invalid_token Unregistered",
                "imkit-2 aaa apns delivered -", "imkit-2 aaa fcm delivered -",
            ])
        let apnsPaths = requests.filter { $0.path.hasPrefix("/3/device/") }.map(\.path)
        #expect(
            apnsPaths.sorted()
                == [
                    "/3/device/\(Self.currentToken)", "/3/device/\(Self.currentToken)", "/3/device/\(Self.deadToken)",
                ].sorted())
        #expect(deadClientDevices.isEmpty)
        #expect(liveClientDevices.count == 2)
        #expect(requests.filter { $0.path.contains("messages:send") }.count == 2)
        let v1 = requests.last { $0.path == "/3/device/\(Self.currentToken)" }
        #expect(v1?.body.contains(#""badge":7"#) == true)
        #expect(v1?.body.contains(#""body":"SSS says hi""#) == true)
        #expect(try schemaViolations(receipts.map(\.value), schema: "receipt.schema.json") == nil)
    }

    @Test func twoClientsWhoseIdsDifferOnlyByNormalizationEachGetTheirOwnDevicesPush() async throws {
        let run = try await IMKITRun()
        // café as NFC (caf%C3%A9) and as NFD (cafe%CC%81): equal Strings, two users.
        let clients = [
            ("composed", "caf\u{E9}", String(repeating: "c1", count: 32)),
            ("decomposed", "cafe\u{301}", String(repeating: "d2", count: 32)),
        ]
        for (_, client, token) in clients {
            let (_, value) = Self.subscription(client, "ios", "D1", token: token)
            try await run.produce("push.devices", RegistryKey.join(["SampleApp", client, "ios", "D1"]), value)
        }
        for (name, client, _) in clients {
            try await run.produce(
                "chat.messages", "demo-room",
                #"{"_id": "m-\#(name)", "message": "hi", "room": "demo-room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "pushToClients": ["\#(client)"]}"#
            )
        }
        try await run.startWorker(id: "worker-ids")
        let receipts = try await readRecords(run.kafka, topic: "push.receipts", count: 2, within: .seconds(90))
        let requests = try await run.simulator.requests()
        let listed = try await run.listed(clients[0].1)
        #expect(await run.stop() == 0)

        let sends = receipts.compactMap { try? JSONParser.parse($0.value) }.map { receipt in
            [receipt["messageId"], receipt["status"], receipt["tokenHash"]].map { $0?.stringValue ?? "-" }
                .joined(separator: " ")
        }
        #expect(
            sends.sorted() == clients.map { "m-\($0.0) delivered \(SHA256.tokenHash($0.2))" }.sorted())
        #expect(requests.map(\.path).sorted() == clients.map { "/3/device/\($0.2)" }.sorted())
        #expect(listed.count == 1)
        #expect(listed.first?.contains(SHA256.tokenHash(clients[0].2)) == true)
    }
}
