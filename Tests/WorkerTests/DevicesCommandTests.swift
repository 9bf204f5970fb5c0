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

    /// `push-worker devices ARGUMENTS` with `environment`, waited for.
    static func devices(_ arguments: [String], environment: [String: String]) async throws -> ChildProcessResult {
        try await ChildProcessResult.run(
            ChildProcess.built("push-worker"), ["devices"] + arguments, environment: environment, within: .seconds(60))
    }

    @Test func subscribeImportListStatsAndUnsubscribe() async throws {
        let (broker, bootstrap) = try await startDevBroker()
        let environment = ["KAFKA_BOOTSTRAP_SERVERS": bootstrap]
        func devices(_ arguments: [String]) async throws -> ChildProcessResult {
            try await Self.devices(arguments, environment: environment)
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
        #expect(imported.stderr.contains("imported 2 devices (line 5)"))
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

    @Test func importTakesCRLFFilesSkipsLinesThatAreNotUTF8AndFailsWhenItImportsNothing() async throws {
        let (broker, bootstrap) = try await startDevBroker()
        let environment = ["KAFKA_BOOTSTRAP_SERVERS": bootstrap]
        func devices(_ arguments: [String]) async throws -> ChildProcessResult {
            try await Self.devices(arguments, environment: environment)
        }
        func file(_ bytes: [UInt8], _ suffix: String) throws -> URL {
            try Repository.temporaryFile(bytes, suffix: suffix)
        }
        // Windows line ends, and `caf` followed by two bytes that are not UTF-8 (line 4, byte 14).
        let csv = try file(
            Array("appID,clientId,type,token,deviceId\r\nSampleApp,crlf-1,fcm,fcm-token-1,P1\r\n".utf8)
                + Array("SampleApp,crlf-2,fcm,fcm-token-2,P2\r\nSampleApp,caf".utf8) + [0xFF, 0xFE]
                + Array(",fcm,fcm-token-3,P3\r\n".utf8), ".csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        let importedCSV = try await devices(["import", "--format", "csv", csv.path])
        #expect(importedCSV.status == 0, "\(importedCSV.stderr)")
        #expect(importedCSV.stdout.contains("imported 2 devices, skipped 1 lines"), "\(importedCSV.stdout)")
        #expect(importedCSV.stderr.contains("line 4: not UTF-8 (byte 14)"), "\(importedCSV.stderr)")

        let rows = (1...3).map {
            #"{"appID": "SampleApp", "clientId": "jsonl-\#($0)", "type": "fcm", "token": "fcm-token-\#($0)", "deviceId": "P"}"#
        }
        let jsonl = try file(Array(rows.map { $0 + "\r\n" }.joined().utf8), ".jsonl")
        defer { try? FileManager.default.removeItem(at: jsonl) }
        let importedLines = try await devices(["import", "--format", "jsonl", jsonl.path])
        #expect(importedLines.status == 0, "\(importedLines.stderr)")
        #expect(importedLines.stdout.contains("imported 3 devices, skipped 0 lines"), "\(importedLines.stdout)")

        let nothing = try file(
            Array(#"{"appID": "SampleApp", "clientId": "caf"#.utf8) + [0xFF]
                + Array(#"", "type": "fcm", "token": "t", "deviceId": "P"}"#.utf8) + Array("\r\nnot json\r\n".utf8),
            ".jsonl")
        defer { try? FileManager.default.removeItem(at: nothing) }
        let importedNothing = try await devices(["import", "--format", "jsonl", nothing.path])
        #expect(importedNothing.status == 1, "\(importedNothing.stderr)")
        #expect(importedNothing.stdout.contains("imported 0 devices, skipped 2 lines"))
        #expect(importedNothing.stderr.contains("line 1: not UTF-8 (byte 40)"), "\(importedNothing.stderr)")
        #expect(importedNothing.stderr.contains("line 2: not a JSON object"))

        let stats = try await devices(["stats"])
        // On Tansu, `devices stats` reads only up to the high watermark (TansuDifferencesTests), as above.
        withKnownIssue("Tansu's high watermark leaves a device out of the window", isIntermittent: true) {
            #expect(stats.stdout.contains("5 devices, 5 clients"), "\(stats.stdout)")
        } when: {
            broker.kind == .tansu
        }
        _ = try? await broker.terminate()
    }

    @Test func byClientEveryRecordOfAClientGoesToThePartitionOfItsClientKey() async throws {
        let (broker, bootstrap) = try await startDevBroker(partitions: 6)
        let environment = ["KAFKA_BOOTSTRAP_SERVERS": bootstrap, "PUSH_REGISTRY_PARTITIONING": "client"]
        let clients = (0..<12).map { "client/\($0)" }
        let rows = clients.flatMap { client in
            ["fcm", "android"].enumerated().map { "SampleApp,\(client),\($1),fcm-token-\($0),P\($0)\n" }
        }
        let csv = try Repository.temporaryFile(
            Array(("appID,clientId,type,token,deviceId\n" + rows.joined()).utf8), suffix: ".csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        let imported = try await Self.devices(["import", "--format", "csv", csv.path], environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let subscribed = try await Self.devices(
            [
                "subscribe", "--app", "SampleApp", "--client", clients[0], "--type", "ios", "--device", "D1", "--token",
                Self.token,
            ], environment: environment)
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        let unsubscribed = try await Self.devices(
            ["unsubscribe", "--app", "SampleApp", "--client", clients[1], "--type", "fcm", "--device", "P0"],
            environment: environment)
        #expect(unsubscribed.status == 0, "\(unsubscribed.stderr)")
        let expected = rows.count + 2
        let records = try await readRecords(
            KafkaConfiguration(["bootstrap.servers": bootstrap]), topic: "push.devices", partitions: Array(0..<6),
            count: expected, within: .seconds(30))
        #expect(records.count == expected)
        var partitionsOfClients: [String: Set<Int32>] = [:]
        for record in records {
            let key = try #require(DeviceKey(text: String(decoding: record.key ?? [], as: UTF8.self)))
            #expect(record.partition == ClientPartitioner.partition(of: key.client, partitions: 6), "\(key)")
            partitionsOfClients[key.clientID, default: []].insert(record.partition)
        }
        #expect(partitionsOfClients.count == clients.count)
        #expect(partitionsOfClients.values.allSatisfy { $0.count == 1 })
        #expect(Set(partitionsOfClients.values.flatMap { $0 }).count > 1)
        _ = try? await broker.terminate()
    }
}
