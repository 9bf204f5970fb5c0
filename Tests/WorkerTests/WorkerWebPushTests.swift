import Essentials
import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// `push-worker run` with a VAPID key, the registry on the dev broker and the push simulator's Web Push service:
/// IMKIT messages to `web` devices are encrypted, signed, decrypted by the simulator, and each outcome has its
/// receipt.
@Suite(.serialized) struct WorkerWebPushTests {
    struct Subscribed: Decodable {
        var id: String
        var subscription: String
    }

    struct Messages: Decodable {
        struct Message: Decodable {
            var id: String
            var payload: JSONAny
            var headers: [String: JSONAny]
            var vapid: [String: JSONAny]
        }
        var messages: [Message]
    }

    /// Any JSON value, decoded as the text of its encoding.
    struct JSONAny: Decodable, Equatable {
        var text: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let string = try? container.decode(String.self) {
                text = string
            } else if let number = try? container.decode(Int.self) {
                text = String(number)
            } else if container.decodeNil() {
                text = "null"
            } else if let array = try? container.decode([JSONAny].self) {
                text = "[" + array.map(\.text).joined(separator: ",") + "]"
            } else {
                let object = try container.decode([String: JSONAny].self)
                text = "{" + object.keys.sorted().map { "\($0)=\(object[$0]!.text)" }.joined(separator: ",") + "}"
            }
        }
    }

    static func subscribe(_ simulator: PushSimulator) async throws -> Subscribed {
        try await simulator.control(
            "POST", "/control/webpush-subscribe", body: #"{"origin": "\#(simulator.baseURL)"}"#, as: Subscribed.self)
    }

    static func record(_ client: String, _ device: String, token: String) -> (String, String) {
        let quoted = JSONWriter.quoted(token)
        return (
            "SampleApp/\(client)/web/\(device)",
            #"{"appID": "SampleApp", "clientId": "\#(client)", "type": "web", "token": \#(quoted), "deviceId": "\#(device)"}"#
        )
    }

    /// The worker's environment with a VAPID key: APNs and FCM of the simulator too, as every end-to-end test has.
    static func environment(bootstrap: String, simulator: PushSimulator, allowPrivate: Bool) async throws
        -> [String: String]
    {
        let vapid = try Repository.temporaryFile(Array(try TestKeys.p256.get().utf8), suffix: ".pem")
        return EndToEnd.workerEnvironment(
            bootstrap: bootstrap, simulator: simulator, apns: try await simulator.apnsCredentials(),
            fcm: try await simulator.serviceAccountFile()
        ).merging([
            "WEBPUSH_VAPID_KEY_FILE": vapid.path, "WEBPUSH_VAPID_SUBJECT": "mailto:push@example.com",
            "WEBPUSH_ALLOW_PRIVATE_ENDPOINTS": allowPrivate ? "true" : "false", "PUSH_WORKER_ID": "worker-webpush",
            "PUSH_RETRY_BASE_MS": "100",
        ]) { $1 }
    }

    @Test func anIMKITMessageReachesBrowsersDecryptedAndEachOutcomeHasItsReceipt() async throws {
        let simulator = try await PushSimulator.start()
        let (aaa, bbb, ccc, ddd) = (
            try await Self.subscribe(simulator), try await Self.subscribe(simulator),
            try await Self.subscribe(simulator), try await Self.subscribe(simulator)
        )
        _ = try await simulator.control("POST", "/control/webpush-unsubscribe", body: #"{"id": "\#(bbb.id)"}"#)
        try await simulator.addFaultRule(#"{"path": "/wp/\#(ccc.id)$", "status": 413}"#)
        try await simulator.addFaultRule(#"{"path": "/wp/\#(ddd.id)$", "status": 429, "retry_after": 1, "times": 1}"#)
        var records = [("aaa", aaa), ("bbb", bbb), ("ccc", ccc), ("ddd", ddd)].map { client, subscribed in
            let (key, value) = Self.record(client, "B1", token: subscribed.subscription)
            return (topic: "push.devices", key: key, value: value)
        }
        records.append(
            (
                "chat.messages", "demo-room",
                #"{"_id": "imkit-w1", "message": "hello browsers", "room": "demo-room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "data": {"payload": {"k": "v"}}, "pushToClients": ["aaa", "bbb", "ccc", "ddd"]}"#
            ))
        records.append(
            (
                "chat.messages", "custom",
                #"{"clients": ["aaa"], "appID": "SampleApp", "id": "promo-1", "payload": {"title": "Sale", "body": "50% off", "badge": 2}}"#
            ))
        let (status, (receipts, messages, dead, registry, listed, replay, replayed, afterReplay)) = try await Self.run(
            simulator, records: records
        ) { run in
            let receipts = try await readRecords(run.kafka, topic: "push.receipts", count: 5, within: .seconds(90))
            let messages = try await simulator.control(
                "POST", "/control/webpush-messages", body: "{}", as: Messages.self)
            let dead = try await readRecords(run.kafka, topic: "push.invalid-tokens", count: 1, within: .seconds(30))
            // The tombstone goes with the invalid-token record, in the same batch as the receipts but maybe seen later.
            let registry = try await readRecords(run.kafka, topic: "push.devices", count: 5, within: .seconds(30))
            let listed = try await ChildProcessResult.run(
                ChildProcess.built("push-worker"), ["devices", "list", "--app", "SampleApp", "--client", "bbb"],
                environment: ["KAFKA_BOOTSTRAP_SERVERS": run.bootstrap], within: .seconds(60))
            // A replay sends the window again, to the registry as it is now: bbb's subscription is gone.
            let replay = try await ChildProcessResult.run(
                ChildProcess.built("push-worker"),
                ["replay", "--topic", "chat.messages", "--run-id", "web-again", "--format", "json"],
                environment: run.environment.merging(["LOG_LEVEL": "warning"]) { $1 }, within: .seconds(90))
            let replayed = try await readRecords(run.kafka, topic: "push.receipts", count: 10, within: .seconds(60))
                .compactMap { try? JSONParser.parse($0.value) }.filter { $0["replayRunId"] == .string("web-again") }
            let afterReplay = try await simulator.control(
                "POST", "/control/webpush-messages", body: #"{"id": "\#(aaa.id)"}"#, as: Messages.self)
            return (receipts, messages, dead, registry, listed, replay, replayed, afterReplay)
        }
        #expect(status == 0)

        let values = receipts.compactMap { try? JSONParser.parse($0.value) }
        let outline = values.map { receipt in
            [receipt["messageId"], receipt["userId"], receipt["platform"], receipt["status"]]
                .map { $0?.stringValue ?? "-" }.joined(separator: " ")
        }
        #expect(
            outline.sorted() == [
                "imkit-w1 aaa web delivered", "imkit-w1 bbb web invalid_token", "imkit-w1 ccc web dead_lettered",
                "imkit-w1 ddd web delivered", "promo-1 aaa web delivered",
            ])
        #expect(values.first { $0["userId"]?.stringValue == "ddd" }?["attempts"] == .number("2"))
        // Records of several partitions come in any order: the tombstone is the one empty value, under bbb's key.
        #expect(
            registry.filter { $0.value.isEmpty }.map { String(decoding: $0.key ?? [], as: UTF8.self) }
                == ["SampleApp/bbb/web/B1"])
        #expect(listed.stdout.isEmpty)
        let invalid = try JSONParser.parse(try #require(dead.first).value)
        #expect(invalid["platform"] == .string("web"))
        #expect(invalid["userId"] == .string("bbb"))
        #expect(invalid["app"] == .string(simulator.baseURL))
        #expect(try schemaViolations(receipts.map(\.value), schema: "receipt.schema.json") == nil)
        let toAAA = messages.messages.filter { $0.id == aaa.id }
        #expect(toAAA.count == 2)
        let message = try #require(toAAA.first { $0.payload.text.contains("mid=imkit-w1") })
        #expect(message.payload.text.contains("body=SSS: hello browsers"))
        #expect(message.payload.text.contains("tag=demo-room"))
        #expect(message.headers["urgency"]?.text == "high")
        #expect(message.vapid["aud"]?.text == simulator.baseURL)
        #expect(message.vapid["sub"]?.text == "mailto:push@example.com")
        let promo = try #require(toAAA.first { $0.payload.text.contains("mid=promo-1") })
        #expect(promo.payload.text.contains("title=Sale"))
        #expect(promo.payload.text.contains("badge=2"))
        #expect(messages.messages.filter { $0.id == ddd.id }.count == 1)
        #expect(replay.status == 0)
        #expect(
            replayed.map { receipt in
                [receipt["messageId"], receipt["userId"], receipt["platform"], receipt["status"]]
                    .map { $0?.stringValue ?? "-" }.joined(separator: " ")
            }.sorted() == [
                "imkit-w1 aaa web delivered", "imkit-w1 bbb none skipped", "imkit-w1 ccc web dead_lettered",
                "imkit-w1 ddd web delivered", "promo-1 aaa web delivered",
            ])
        #expect(afterReplay.messages.count == 4)
    }

    /// The push service's other answers, injected per subscription: 404 tombstones like 410, a 5xx is retried, 4xx
    /// texts reach the receipt bounded and sanitized, and a redirect is answered but never followed.
    @Test func theServicesErrorsRedirectsAndRetriesHaveTheirReceipts() async throws {
        let simulator = try await PushSimulator.start()
        var subscribed: [String: Subscribed] = [:]
        for client in ["gone", "flaky", "bad", "unauthorized", "forbidden", "moved", "target"] {
            subscribed[client] = try await Self.subscribe(simulator)
        }
        func path(_ client: String) -> String { "/wp/\(subscribed[client]?.id ?? client)" }
        // A tab, a newline and more than the 160 bytes a reason quotes.
        let badText = "bad\trequest\n" + String(repeating: "x", count: 200)
        for rule in [
            #"{"path": "\#(path("gone"))$", "status": 404, "body": "no such subscription"}"#,
            #"{"path": "\#(path("flaky"))$", "status": 503, "times": 1, "body": "try later"}"#,
            #"{"path": "\#(path("bad"))$", "status": 400, "body": \#(JSONWriter.quoted(badText))}"#,
            #"{"path": "\#(path("unauthorized"))$", "status": 401, "body": "VAPID signature invalid"}"#,
            #"{"path": "\#(path("forbidden"))$", "status": 403, "body": "key mismatch"}"#,
            #"{"path": "\#(path("moved"))$", "status": 301, "location": "\#(simulator.baseURL)\#(path("target"))"}"#,
        ] {
            try await simulator.addFaultRule(rule)
        }
        let clients = ["gone", "flaky", "bad", "unauthorized", "forbidden", "moved"]
        var records = try clients.map { client in
            let (key, value) = Self.record(client, "B1", token: try #require(subscribed[client]).subscription)
            return (topic: "push.devices", key: key, value: value)
        }
        let listed = clients.map { "\"\($0)\"" }.joined(separator: ", ")
        records.append(
            (
                "chat.messages", "demo-room",
                #"{"_id": "imkit-w3", "message": "hi", "room": "demo-room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "pushToClients": [\#(listed)]}"#
            ))
        let (status, (receipts, invalid, requests, delivered)) = try await Self.run(simulator, records: records) {
            run in
            (
                try await readRecords(run.kafka, topic: "push.receipts", count: 6, within: .seconds(90)),
                try await readRecords(run.kafka, topic: "push.invalid-tokens", count: 1, within: .seconds(30)),
                try await simulator.requests(),
                try await simulator.control("POST", "/control/webpush-messages", body: "{}", as: Messages.self)
            )
        }
        #expect(status == 0)

        var byClient: [String: JSONValue] = [:]
        for record in receipts {
            let receipt = try JSONParser.parse(record.value)
            byClient[receipt["userId"]?.stringValue ?? "-"] = receipt
        }
        func outline(_ client: String) -> String {
            ["status", "attempts", "reason"].map { field in
                switch byClient[client]?[field] {
                case .string(let text): text
                case .number(let number): number
                default: "-"
                }
            }.joined(separator: " | ")
        }
        #expect(byClient["gone"]?["status"] == .string("invalid_token"))
        #expect(byClient["flaky"]?["status"] == .string("delivered"))
        #expect(byClient["flaky"]?["attempts"] == .number("2"))
        #expect(outline("bad") == "rejected | 1 | HTTP 400: bad request " + String(repeating: "x", count: 148))
        #expect(outline("unauthorized") == "rejected | 1 | HTTP 401: VAPID signature invalid")
        #expect(outline("forbidden") == "rejected | 1 | HTTP 403: key mismatch")
        #expect(outline("moved") == "rejected | 1 | redirect not followed (HTTP 301)")
        #expect(try JSONParser.parse(try #require(invalid.first).value)["userId"] == .string("gone"))
        #expect(requests.filter { $0.path == path("flaky") }.count == 2)
        #expect(requests.filter { $0.path == path("moved") }.count == 1)
        #expect(!requests.contains { $0.path == path("target") })
        #expect(delivered.messages.map(\.id) == [try #require(subscribed["flaky"]).id])
    }

    @Test func aSubscriptionAtALoopbackAddressIsRefusedByDefaultAndNothingIsConnectedTo() async throws {
        let simulator = try await PushSimulator.start()
        let aaa = try await Self.subscribe(simulator)
        let (key, value) = Self.record("aaa", "B1", token: aaa.subscription)
        let records = [
            (topic: "push.devices", key: key, value: value),
            (
                topic: "chat.messages", key: "demo-room",
                value:
                    #"{"_id": "imkit-w2", "message": "hi", "room": "demo-room", "sender": {"_id": "sss"}, "messageType": "text", "appID": "SampleApp", "pushToClients": ["aaa"]}"#
            ),
        ]
        let (status, (receipts, requests)) = try await Self.run(simulator, allowPrivate: false, records: records) {
            run in
            (
                try await readRecords(run.kafka, topic: "push.receipts", count: 1, within: .seconds(90)),
                try await simulator.requests()
            )
        }
        #expect(status == 0)
        let receipt = try JSONParser.parse(try #require(receipts.first).value)
        #expect(receipt["status"] == .string("rejected"))
        #expect(receipt["reason"] == .string("endpoint refused: the endpoint is a private IPv4 address"))
        #expect(!requests.contains { $0.path.hasPrefix("/wp/") })
    }
}
