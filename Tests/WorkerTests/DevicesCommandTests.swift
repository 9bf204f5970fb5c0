import Essentials
import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// `push-worker devices` against the dev broker: what operators write is what the workers' registry reads.
@Suite(.serialized) struct DevicesCommandTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func subscribeImportListStatsAndUnsubscribe() async throws {
        let (broker, bootstrap) = try await startDevBroker()
        let environment = ["KAFKA_BOOTSTRAP_SERVERS": bootstrap]
        func devices(_ arguments: [String]) async throws -> ChildProcessResult {
            try await ChildProcessResult.run(
                ChildProcess.built("push-worker"), ["devices"] + arguments, environment: environment,
                within: .seconds(60))
        }
        let subscribed = try await devices([
            "subscribe", "--app", "SampleApp", "--client", "a/b", "--type", "ios", "--device", "D1", "--token",
            Self.token,
        ])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        let refused = try await devices([
            "subscribe", "--client", "c", "--type", "ios", "--device", "D1", "--token", "not-hex",
        ])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("bad_token"))

        let csv = try Repository.temporaryFile(
            Array(
                """
                appID,clientId,type,token,deviceId,locale
                SampleApp,a/b,fcm,fcm-token-1,P1,ja
                SampleApp,c,ios,zz,D2,
                SampleApp,c,android,fcm-token-2,P2,
                SampleApp,c,pager,x,P3,

                """.utf8), suffix: ".csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        let imported = try await devices(["import", "--format", "csv", csv.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported 2 devices, skipped 2 lines"))
        #expect(imported.stderr.contains("line 3: token: must be"))
        #expect(imported.stderr.contains("line 5: type: must be one of"))
        #expect(imported.stderr.contains("imported 2/2"))
        let withoutFile = try await devices(["import", "--format", "csv"])
        #expect(withoutFile.status == 2)
        #expect(withoutFile.stderr.contains("missing argument FILE"))
        let jsonl = try Repository.temporaryFile(
            Array(
                (#"{"appID": "SampleApp", "clientId": "c", "type": "fcm", "token": "fcm-token-3", "deviceId": "P4"}"#
                    + "\nnot json\n").utf8), suffix: ".jsonl")
        defer { try? FileManager.default.removeItem(at: jsonl) }
        let importedLines = try await devices(["import", jsonl.path, "--format", "jsonl"])
        #expect(importedLines.status == 0, "\(importedLines.stderr)")
        #expect(importedLines.stdout.contains("imported 1 devices, skipped 1 lines"))
        #expect(importedLines.stderr.contains("line 2: not a JSON object"))

        let listed = try await devices(["list", "--app", "SampleApp", "--client", "a/b"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
        #expect(lines.map { $0["type"]?.stringValue } == ["fcm", "ios"])
        #expect(lines.last?["tokenHash"] == .string(SHA256.tokenHash(Self.token)))
        #expect(!listed.stdout.contains(Self.token))

        let unsubscribed = try await devices([
            "unsubscribe", "--app", "SampleApp", "--client", "a/b", "--type", "ios", "--device", "D1",
        ])
        #expect(unsubscribed.status == 0, "\(unsubscribed.stderr)")
        let stats = try await devices(["stats"])
        #expect(stats.status == 0, "\(stats.stderr)")
        // On Tansu, `devices stats` reads the registry's topic only up to its high watermark, which Tansu puts at the
        // last batch's base offset + 1 (TansuDifferencesTests): the import's last device of a partition is left out.
        withKnownIssue("Tansu's high watermark leaves a device out of the window", isIntermittent: true) {
            #expect(stats.stdout.contains("SampleApp\tandroid\t1"))
            #expect(stats.stdout.contains("3 devices, 2 clients"))
        } when: {
            broker.kind == .tansu
        }
        #expect(stats.stdout.contains("SampleApp\tfcm\t2"))
        #expect(!stats.stdout.contains("SampleApp\tios"))
        _ = try? await broker.terminate()
    }
}
