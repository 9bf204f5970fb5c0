import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// `push-worker run` with `PUSH_APPS_DIR` of two apps with their own APNs keys and FCM projects, on the dev broker
/// and the push simulator (which checks each provider token against its key and each access token against its
/// project): each app's messages go signed with its own key to its own project, a broken folder refuses its app
/// only, and an unknown app is refused.
@Suite(.serialized) struct WorkerAppsTests {
    struct APNsStats: Decodable {
        let acceptedByKey: [String: Int]
        let rejections: [String: Int]
    }

    struct FCMStats: Decodable {
        let acceptedByProject: [String: Int]
        let rejections: [String: Int]
    }

    static func event(_ id: String, app: String?, apnsToken: String, fcmToken: String? = nil) -> String {
        let appMember = app.map { #""appID": "\#($0)", "# } ?? ""
        let fcm = fcmToken.map { #", {"platform": "fcm", "token": "\#($0)"}"# } ?? ""
        return #"""
            {"id": "\#(id)", "type": "text", \#(appMember)"room": {"id": "r-\#(id)"}, "sender": {"id": "u-1", "nickname": "Alice"}, "content": "Hello", "recipients": [{"userId": "u-2", "devices": [{"platform": "apns", "token": "\#(apnsToken)"}\#(fcm)]}]}
            """#
    }

    /// Writes the folder of `app` (its key, settings and service account) into `directory`.
    static func writeApp(
        _ app: String, in directory: URL, apns: APNsCredentials, fcm: ServiceAccountFile, settings: String? = nil
    ) throws {
        let folder = directory.appendingPathComponent(app)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let json =
            settings
            ?? #"{"apns": {"keyId": "\#(apns.keyId)", "teamId": "\#(apns.teamId)", "topic": "\#(apns.topic)"}}"#
        try Data(json.utf8).write(to: folder.appendingPathComponent("app.json"))
        try FileManager.default.copyItem(
            atPath: apns.keyFile, toPath: folder.appendingPathComponent("apns-key.p8").path)
        try FileManager.default.copyItem(
            atPath: fcm.serviceAccountFile, toPath: folder.appendingPathComponent("fcm-service-account.json").path)
    }

    @Test func eachAppSendsWithItsOwnKeyAndProjectAndABrokenOrUnknownAppIsRefusedAlone() async throws {
        let simulator = try await PushSimulator.start()
        let apns = try await simulator.apnsCredentials()
        let fcm = try await simulator.serviceAccountFile()
        let alphaKey = try await simulator.apnsCredentials(app: "alpha")
        let alphaAccount = try await simulator.serviceAccountFile(project: "alpha-project")
        let betaKey = try await simulator.apnsCredentials(app: "beta")
        let betaAccount = try await simulator.serviceAccountFile(project: "beta-project")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-apps-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.writeApp("alpha", in: directory, apns: alphaKey, fcm: alphaAccount)
        try Self.writeApp("beta", in: directory, apns: betaKey, fcm: betaAccount)
        try Self.writeApp(
            "broken", in: directory, apns: betaKey, fcm: betaAccount, settings: #"{"apns": {"keyId": 1}}"#)
        // The default app's key in a folder too: one provider token for both (a second one would be refused).
        try Self.writeApp("same", in: directory, apns: apns, fcm: fcm)

        let (broker, bootstrap) = try await startDevBroker()
        let kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        let producer = try KafkaProducer(configuration: kafka)
        let token = { (byte: String) in String(repeating: byte, count: 32) }
        let events = [
            Self.event("m-alpha", app: "alpha", apnsToken: token("a1"), fcmToken: "fcm-alpha"),
            Self.event("m-beta", app: "beta", apnsToken: token("b1"), fcmToken: "fcm-beta"),
            Self.event("m-default", app: nil, apnsToken: token("d1"), fcmToken: "fcm-default"),
            Self.event("m-broken", app: "broken", apnsToken: token("c1")),
            Self.event("m-unknown", app: "gamma", apnsToken: token("e1")),
            Self.event("m-same", app: "same", apnsToken: token("f1")),
        ]
        for value in events {
            _ = try await producer.send(
                KafkaProducerRecord(topic: "chat.messages", key: Array("r".utf8), value: Array(value.utf8)))
        }
        let worker = try workerProcess(
            environment: EndToEnd.workerEnvironment(bootstrap: bootstrap, simulator: simulator, apns: apns, fcm: fcm)
                .merging([
                    "PUSH_WORKER_ID": "worker-apps", "PUSH_APPS_DIR": directory.path, "PUSH_APPS_CHECK_MS": "200",
                ]) { $1 })
        let first = try await readRecords(kafka, topic: "push.receipts", count: 9, within: .seconds(90))

        // The alpha folder breaks (a Secret update with a bad key): alpha is refused, beta goes on.
        try Data("not a key".utf8).write(to: directory.appendingPathComponent("alpha/apns-key.p8"))
        let refused = await worker.stderr.waitForLine(containing: "alpha/apns-key.p8", within: .seconds(30))
        for value in [
            Self.event("m-alpha-2", app: "alpha", apnsToken: token("a2")),
            Self.event("m-beta-2", app: "beta", apnsToken: token("b2")),
        ] {
            _ = try await producer.send(
                KafkaProducerRecord(topic: "chat.messages", key: Array("r".utf8), value: Array(value.utf8)))
        }
        let all = try await readRecords(kafka, topic: "push.receipts", count: 11, within: .seconds(90))
        let port = try #require(WorkerScrapeTests.statusPort(in: worker.stderr.text))
        let scrape = try WorkerScrapeTests.get(port: port, "/metrics").body
        let apnsStats = try await simulator.control("POST", "/control/apns-stats", body: "{}", as: APNsStats.self)
        let fcmStats = try await simulator.control("POST", "/control/fcm-stats", body: "{}", as: FCMStats.self)
        worker.signal(SIGTERM)
        let status = await worker.exitStatus()
        _ = await producer.close(timeout: .seconds(5))
        _ = try? await broker.terminate()
        await simulator.stop()
        #expect(status == 0)
        #expect(first.count == 9)
        #expect(refused)

        let outline = all.compactMap { try? JSONParser.parse($0.value) }.map { receipt in
            [receipt["messageId"], receipt["platform"], receipt["status"], receipt["reason"]]
                .map { $0?.stringValue ?? "-" }.joined(separator: " ")
        }
        #expect(
            outline.sorted() == [
                "m-alpha apns delivered -", "m-alpha fcm delivered -", "m-alpha-2 apns rejected app_misconfigured",
                "m-beta apns delivered -", "m-beta fcm delivered -", "m-beta-2 apns delivered -",
                "m-broken apns rejected app_misconfigured", "m-default apns delivered -", "m-default fcm delivered -",
                "m-same apns delivered -", "m-unknown apns rejected unknown_app",
            ])
        // Each app's sends were signed with its own key and went to its own project.
        #expect(apnsStats.acceptedByKey == [apns.keyId: 2, alphaKey.keyId: 1, betaKey.keyId: 2])
        #expect(apnsStats.rejections.isEmpty)
        #expect(
            fcmStats.acceptedByProject == [fcm.projectId: 1, alphaAccount.projectId: 1, betaAccount.projectId: 1])
        #expect(fcmStats.rejections.isEmpty)
        #expect(try schemaViolations(all.map(\.value), schema: "receipt.schema.json") == nil)
        // Counted by app: sends, the refusals of the planned messages, and the folder changes.
        for sample in [
            #"push_app_sends_total{app="alpha",provider="apns",status="delivered"} 1"#,
            #"push_app_sends_total{app="beta",provider="fcm",status="delivered"} 1"#,
            #"push_app_sends_total{app="(default)",provider="apns",status="delivered"} 1"#,
            #"push_app_refusals_total{app="gamma",reason="unknown_app"} 1"#,
            #"push_app_refusals_total{app="alpha",reason="app_misconfigured"} 1"#,
            #"push_apps_reloads_total{result="added"} 3"#, #"push_apps_reloads_total{result="broken"} 2"#,
            #"push_apps_reloads_total{result="removed"} 0"#,
        ] {
            #expect(scrape.contains(sample), "\(sample)")
        }
    }
}
