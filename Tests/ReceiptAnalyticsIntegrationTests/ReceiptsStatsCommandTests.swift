import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// `push-worker receipts stats` as a process against the dev broker over TCP, checked against counts made
/// here; its HTML report in a real headless Chromium, and the ClickHouse kit in embedded ClickHouse (chdb).
@Suite(.serialized) struct ReceiptsStatsCommandTests {
    static let receipts = GeneratedReceipts(count: 3_000, seed: 11)
    static let garbage = ["not json", #"{"status":"delivered"}"#]

    /// A dev broker holding the generated receipts, their copies (each in its first's partition) and two records
    /// that are not receipts on push.receipts.
    static func broker() async throws -> (DevBrokerProcess, String) {
        let broker = try DevBrokerProcess(arguments: [
            "--brokers", "1", "--partitions", String(GeneratedReceipts.partitions), "--topics", "push.receipts",
        ])
        let servers = try await broker.bootstrapServers(within: .seconds(30))
        let producer = try KafkaProducer(configuration: KafkaConfiguration(["bootstrap.servers": servers]))
        let records = receipts.records.map { ($0.partition, $0.line) } + garbage.map { (Int32(0), $0) }
        for (partition, line) in records {
            try producer.send(
                KafkaProducerRecord(topic: "push.receipts", partition: partition, key: nil, value: Array(line.utf8))
            ) { _ in }
        }
        try await producer.flush(timeout: .seconds(30))
        await producer.close()
        return (broker, servers)
    }

    static func stats(_ arguments: [String], servers: String) async throws -> ChildProcessResult {
        try await ChildProcessResult.run(
            ChildProcess.built("push-worker"), ["receipts", "stats"] + arguments,
            environment: ["KAFKA_BOOTSTRAP_SERVERS": servers])
    }

    static func number(_ value: JSONValue?) -> Double? {
        guard case .number(let text)? = value else { return nil }
        return Double(text)
    }

    static func counts(_ value: JSONValue?) -> [String: Int] {
        guard case .object(let members)? = value else { return [:] }
        return Dictionary(uniqueKeysWithValues: members.map { ($0.key, Int(number($0.value) ?? -1)) })
    }

    static func nested(_ value: JSONValue?) -> [String: [String: Int]] {
        guard case .object(let members)? = value else { return [:] }
        return Dictionary(uniqueKeysWithValues: members.map { ($0.key, counts($0.value)) })
    }

    @Test func theStatisticsCountEachReceiptOnceEqualAnIndependentCountAndTheReportAndTheWarehouseAgree()
        async throws
    {
        let (broker, servers) = try await Self.broker()
        defer { _ = Task { try? await broker.terminate() } }
        let directory = FileManager.default.temporaryDirectory.appending(path: "receipts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let html = directory.appending(path: "report.html")

        let result = try await Self.stats(["--format", "json", "--html", html.path], servers: servers)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONParser.parse(Array(result.stdout.utf8))
        let expected = Self.receipts
        #expect(Self.number(json["total"]) == Double(expected.lines.count))
        #expect(Self.number(json["unreadable"]) == Double(Self.garbage.count))
        #expect(Self.number(json["copies"]?["dropped"]) == Double(expected.copies))
        #expect(json["copies"]?["exact"] == .bool(true))
        #expect(Self.counts(json["byStatus"]) == expected.byStatus)
        #expect(expected.suspect > 0)
        #expect(Self.number(json["suspect"]) == Double(expected.suspect))
        #expect(Self.nested(json["byPlatform"]) == expected.byPlatform)
        #expect(Self.nested(json["byType"]) == expected.byType)
        #expect(Self.counts(json["attempts"]) == expected.attempts)
        let rate = try #require(Self.number(json["deliveryRate"]))
        #expect(abs(rate - expected.deliveryRate) < 1e-6)
        for (name, q) in [("p50", 0.5), ("p95", 0.95), ("p99", 0.99)] {
            let value = try #require(Self.number(json["latencyMs"]?[name]))
            let exact = expected.exactLatency(q)
            #expect(abs(value - exact) <= exact * 0.01 + 0.001, "\(name): \(value) vs exact \(exact)")
        }

        try await Self.expectTheReportRendersTheSameNumbers(html, json: json)
        try await Self.expectTheWarehouseQueriesAgree(json)
        _ = try await broker.terminate()
    }

    @Test func filtersByRunAndLeavesReplaysOut() async throws {
        let (broker, servers) = try await Self.broker()
        let run = try JSONParser.parse(
            Array(try await Self.stats(["--format", "json", "--run-id", "run-a"], servers: servers).stdout.utf8))
        #expect(Self.number(run["total"]) == Double(Self.receipts.perRun["run-a"] ?? 0))
        let live = try JSONParser.parse(
            Array(try await Self.stats(["--format", "json", "--no-replays"], servers: servers).stdout.utf8))
        #expect(Self.number(live["total"]) == Double(Self.receipts.perRun["-"] ?? 0))
        let everyCopy = try JSONParser.parse(
            Array(try await Self.stats(["--format", "json", "--count-copies"], servers: servers).stdout.utf8))
        #expect(Self.number(everyCopy["total"]) == Double(Self.receipts.records.count))
        #expect(Self.number(everyCopy["copies"]?["dropped"]) == 0)
        let window = try JSONParser.parse(
            Array(
                try await Self.stats(["--format", "json", "--from", "10", "--to", "0:20,1:20,2:20"], servers: servers)
                    .stdout
                    .utf8))
        #expect(Self.number(window["total"]) == 30)
        let csv = try await Self.stats(["--format", "csv", "--by", "status"], servers: servers)
        #expect(csv.stdout.split(separator: "\n").first == "status,receipts")
        #expect(csv.stdout.contains("\ndelivered,\(Self.receipts.byStatus["delivered"] ?? 0)\n"))
        _ = try await broker.terminate()
    }

    @Test func badOptionsAreUsageErrorsAndAnUnreachableBrokerIsARuntimeFailure() async throws {
        let usage = try await Self.stats(["--from", "yesterday"], servers: "127.0.0.1:9")
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("option '--from': 'yesterday': expected beginning"))
        #expect(try await Self.stats(["--by", "colour"], servers: "127.0.0.1:9").status == 2)
        #expect(try await Self.stats(["--run-id", "a", "--no-replays"], servers: "127.0.0.1:9").status == 2)
        let unreachable = try await ChildProcessResult.run(
            ChildProcess.built("push-worker"), ["receipts", "stats"],
            environment: ["KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:9", "KAFKA_SOCKET_TIMEOUT_MS": "2000"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.hasPrefix("push-worker: error reading push.receipts:"))
    }

    /// Chromium loads the page (no network, no script) and every `data-metric` number equals the JSON's.
    static func expectTheReportRendersTheSameNumbers(_ html: URL, json: JSONValue) async throws {
        let dom = try await ChildProcessResult.run(
            URL(filePath: "/usr/bin/env"),
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", html.absoluteString])
        try #require(dom.status == 0, "chromium: \(dom.stderr.suffix(500)) (run deploy/local/setup.sh)")
        var metrics: [String: String] = [:]
        for match in dom.stdout.matches(of: /data-metric="([^"]+)">([^<]*)</) {
            metrics[String(match.1)] = String(match.2)
        }
        #expect(metrics["total"].flatMap(Double.init) == number(json["total"]))
        #expect(metrics["deliveryRate"].flatMap(Double.init) == number(json["deliveryRate"]))
        for name in ["p50", "p95", "p99"] {
            #expect(metrics["latencyMs.\(name)"].flatMap(Double.init) == number(json["latencyMs"]?[name]))
        }
        for (status, count) in counts(json["byStatus"]) {
            #expect(metrics["byStatus.\(status)"] == String(count), "\(status)")
        }
        for (platform, row) in nested(json["byPlatform"]) {
            for (status, count) in row { #expect(metrics["platform.\(platform).\(status)"] == String(count)) }
        }
        #expect(dom.stdout.components(separatedBy: "<svg").count == 4)
    }

    /// The kit's DDL and queries in embedded ClickHouse, on the same records, agree with the command: the same
    /// distinct counts, the same copies dropped, and the same copy kept of each (the per-minute series and the
    /// latencies would differ otherwise).
    static func expectTheWarehouseQueriesAgree(_ json: JSONValue) async throws {
        let warehouse = try await AnalyticsKit.report(
            receipts.records.map { record in
                AnalyticsKit.Record(
                    topic: "push.receipts", partition: record.partition, offset: record.offset, timestampMillis: nil,
                    value: record.line)
            })
        #expect(number(warehouse["total"]) == number(json["total"]))
        #expect(number(warehouse["copies"]?["dropped"]) == number(json["copies"]?["dropped"]))
        #expect(counts(warehouse["byStatus"]) == counts(json["byStatus"]))
        #expect(number(warehouse["suspect"]) == number(json["suspect"]))
        #expect(nested(warehouse["byPlatform"]) == nested(json["byPlatform"]))
        #expect(nested(warehouse["byType"]) == nested(json["byType"]))
        #expect(counts(warehouse["attempts"]) == counts(json["attempts"]))
        let rate = number(warehouse["deliveryRate"]) ?? -1
        #expect(abs(rate - (number(json["deliveryRate"]) ?? -2)) < 1e-6)
        for name in ["p50", "p95", "p99"] {
            let exact = number(warehouse["latencyMs"]?[name]) ?? 0
            let sketch = number(json["latencyMs"]?[name]) ?? -1
            #expect(abs(sketch - exact) <= exact * 0.01 + 0.001, "\(name): sketch \(sketch) vs ClickHouse \(exact)")
        }
        guard case .array(let minutes)? = warehouse["perMinute"], case .array(let ours)? = json["perMinute"] else {
            Issue.record("no perMinute series")
            return
        }
        #expect(minutes.map { number($0["receipts"]) } == ours.map { number($0["receipts"]) })
        #expect(minutes.map { number($0["delivered"]) } == ours.map { number($0["delivered"]) })
    }
}
