import Foundation
import IntegrationSupport
import KafkaTypes
import PipelineMetrics
import PushCore
import PushPipeline
import TestSupport
import Testing

/// A real scrape of a running `push-worker run`: valid for promtool, holding every metric the Grafana dashboard
/// and the alert rules query, and probes that report each check.
@Suite(.serialized) struct WorkerScrapeTests {

    @Test func aRunningWorkersScrapePassesPromtoolAndHoldsEveryMetricOfTheDashboardAndTheAlerts() async throws {
        let run = try await EndToEnd()
        for index in 0..<10 {
            try await run.produce(
                EndToEnd.event(index, apnsToken: String(format: "%064x", index + 1)), key: "r-\(index % 3)")
        }
        try await run.produce("{\"id\": 5", key: "r-x")
        _ = try await run.read(["push.receipts", "push.dlq"], count: 21)
        let port = try #require(Self.statusPort(in: run.worker.stderr.text), "\(run.worker.stderr.text.suffix(2000))")

        let readiness = try await Self.readiness(port: port)
        #expect(readiness.status == 200, "\(readiness.body)")
        for check in [
            "pipeline", "poll_loop", "event_loop", "kafka.group", "kafka.brokers", "kafka.producer",
            "providers.breakers", "tables.invalid_tokens",
        ] {
            #expect(readiness.body.contains("\"\(check)\":{\"detail\":"), "\(readiness.body)")
        }
        let liveness = try Self.get(port: port, "/healthz")
        #expect(liveness.status == 200, "\(liveness.body)")
        #expect(liveness.body.contains("\"poll_loop\"") && liveness.body.contains("\"event_loop\""))

        // Lag comes with librdkafka's statistics (every 5 s) once the partitions' positions are known; the first
        // successful commit with the next commit interval after the records were stored.
        var scrape = try Self.get(port: port, "/metrics").body
        let deadline = ContinuousClock.now + .seconds(20)
        while !scrape.contains("\nkafka_consumer_lag{") || Self.successfulCommits(in: scrape) == 0,
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(500))
            scrape = try Self.get(port: port, "/metrics").body
        }
        #expect(await run.stop() == 0)

        let promtool = try await ChildProcessResult.run(
            URL(filePath: "/usr/bin/env"), ["promtool", "check", "metrics"], input: scrape)
        #expect(promtool.status == 0, "\(promtool.stdout)\(promtool.stderr)")

        let exposed = Self.sampleNames(in: scrape)
        let dashboard = try String(
            contentsOf: Repository.path("deploy/grafana/push-worker.json"), encoding: .utf8)
        // Produce retries are labelled by topic and librdkafka's error name, an open set: the family appears with
        // its first retry, which a healthy run never has. The ingress's series come from `push-worker ingress`
        // (IngressEndToEndTests checks those).
        let dashboardMetrics = Self.metricNames(in: dashboard).subtracting(["push_worker_produce_retries_total"])
            .filter { !$0.hasPrefix("push_ingress_") }
        #expect(dashboardMetrics.count >= 15)
        #expect(
            dashboardMetrics.subtracting(exposed).isEmpty, "missing: \(dashboardMetrics.subtracting(exposed).sorted())")
        let rules = try String(
            contentsOf: Repository.path("deploy/kubernetes/base/prometheusrule.yaml"), encoding: .utf8)
        let ruleMetrics = Self.metricNames(in: rules)
        #expect(ruleMetrics.subtracting(exposed).isEmpty, "missing: \(ruleMetrics.subtracting(exposed).sorted())")

        #expect(scrape.contains(#"push_breaker_open{provider="apns"} 0"#))
        #expect(scrape.contains(#"push_table_entries{table="invalid_tokens"} 0"#))
        #expect(scrape.contains("# TYPE process_cpu_seconds_total counter"))
        #expect(scrape.contains(#"push_worker_build_info{libcurl="#))
        #expect(scrape.contains("push_end_to_end_latency_seconds_count 10"))
        #expect(Self.successfulCommits(in: scrape) > 0, "\(scrape)")
    }

    /// The value of `kafka_commits_total{result="success",stage="input"}` in `scrape`, 0 without it.
    static func successfulCommits(in scrape: String) -> Double {
        sample(#"kafka_commits_total{result="success",stage="input"}"#, in: scrape) ?? 0
    }

    /// The value of the sample `name` (with its labels as the scrape writes them) in `scrape`.
    static func sample(_ name: String, in scrape: String) -> Double? {
        let line = scrape.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return (line?.split(separator: " ").last).flatMap { Double($0) }
    }

    @Test func theFirstScrapeOfAWorkerHoldsEveryClosedLabelCounterAtZero() async throws {
        // A broker nobody listens on: the worker starts (librdkafka connects lazily) and nothing can move a counter
        // (no assignment, no commit, no record) before the scrape, however slow the machine.
        let run = try await EndToEnd(workerEnvironment: ["KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:1"])
        let port = try await Self.statusPort(of: run)
        let scrape = try Self.get(port: port, "/metrics").body
        _ = await run.stop()

        var expected: [String] = []
        // The providers this worker has: APNs and FCM (no VAPID key, so no Web Push series, as an FCM-only worker
        // has no APNs series below).
        for provider in [PushProvider.apns, .fcm] {
            expected += PushMetrics.sendStatuses.map {
                #"push_sends_total{provider="\#(provider.rawValue)",status="\#($0)"} 0"#
            }
            expected.append(#"push_retries_total{provider="\#(provider.rawValue)"} 0"#)
        }
        expected += ReceiptStatus.allCases.map { #"push_receipts_total{status="\#($0.rawValue)"} 0"# }
        expected += PushMetrics.deadLetterReasons.map { #"push_dlq_total{reason="\#($0.code)"} 0"# }
        expected += PushMetrics.rulesReloadResults.map { #"push_rules_reloads_total{result="\#($0)"} 0"# }
        expected += PushMetrics.commitResults.map { #"kafka_commits_total{result="\#($0)",stage="input"} 0"# }
        expected += ["assigned", "revoked", "lost"].map { #"kafka_rebalances_total{event="\#($0)"} 0"# }
        expected += ["push_retry_handoffs_total 0", "push_in_flight_limit_waits_total 0"]
        expected += ["push_http_connections_total 0", "push_http_resends_total 0"]
        expected += ["push_http_oversized_responses_total 0", "push_worker_produce_early_releases_total 0"]
        let lines = Set(scrape.split(separator: "\n").map(String.init))
        #expect(expected.count == 38)
        #expect(expected.filter { !lines.contains($0) } == [], "\(scrape)")
    }

    @Test func aWorkerWithOnlyFCMConfiguredStartsAndBecomesReady() async throws {
        // Empty values count as unset: the APNs settings of the shared environment are taken away.
        let withoutAPNs = Dictionary(
            uniqueKeysWithValues: [
                "APNS_URL", "APNS_SANDBOX_URL", "APNS_KEY_FILE", "APNS_KEY_ID", "APNS_TEAM_ID", "APNS_TOPIC",
            ]
            .map { ($0, "") })
        let run = try await EndToEnd(workerEnvironment: withoutAPNs)
        let port = try await Self.statusPort(of: run)
        let readiness = try await Self.readiness(port: port)
        #expect(readiness.status == 200, "\(readiness.body)")
        let scrape = try Self.get(port: port, "/metrics").body
        #expect(await run.stop() == 0)
        #expect(scrape.contains(#"push_breaker_open{provider="fcm"} 0"#))
        #expect(!scrape.contains(#"provider="apns""#))
    }

    @Test func aWorkerStartedAsTheBaseWithOnlyTheFCMSecretIsReadyDeliversFCMAndRejectsAPNs() async throws {
        // As deploy/kubernetes/base starts it without the push-worker-apns Secret: APNS_KEY_FILE names a file of
        // the empty optional volume, APNS_TOPIC and the URLs are set, the key and team ids (optional secretKeyRefs)
        // are not (empty counts as unset, the shared environment sets them).
        let missingKey = FileManager.default.temporaryDirectory
            .appendingPathComponent("apns-\(UUID().uuidString)/AuthKey.p8").path
        let run = try await EndToEnd(workerEnvironment: [
            "APNS_KEY_FILE": missingKey, "APNS_KEY_ID": "", "APNS_TEAM_ID": "",
        ])
        let count = 6
        for index in 0..<count {
            try await run.produce(
                EndToEnd.event(index, apnsToken: String(format: "%064x", index + 1)), key: "r-\(index % 3)")
        }
        let receipts = try await run.read(["push.receipts"], count: 2 * count).compactMap {
            try? JSONParser.parse($0.value)
        }
        let port = try #require(Self.statusPort(in: run.worker.stderr.text), "\(run.worker.stderr.text.suffix(2000))")
        let readiness = try await Self.readiness(port: port)
        let requests = try await run.simulator.requests()
        let log = run.worker.stderr.text
        #expect(await run.stop() == 0)

        #expect(readiness.status == 200, "\(readiness.body)")
        #expect(
            readiness.body.contains(
                "\"providers.configured\":{\"detail\":\"fcm; left out: apns: APNS_KEY_FILE \(missingKey) does not exist"
            ),
            "\(readiness.body)")
        #expect(log.components(separatedBy: "provider left out, its credentials are not mounted").count == 2, "\(log)")
        let byPlatform = Dictionary(grouping: receipts) { $0["platform"]?.stringValue ?? "?" }
        #expect(byPlatform["fcm"]?.map { $0["status"] } == Array(repeating: .string("delivered"), count: count))
        #expect(byPlatform["apns"]?.map { $0["status"] } == Array(repeating: .string("rejected"), count: count))
        #expect(byPlatform["apns"]?.first?["reason"] == .string("APNs is not configured"))
        #expect(requests.filter { $0.path.contains("/3/device/") }.isEmpty, "\(requests.map(\.path))")
    }

    /// `/readyz` once it answers 200, or its last answer after 30 s. Readiness follows librdkafka's statistics
    /// (every 5 s): the group joined and a broker up.
    static func readiness(port: Int) async throws -> (status: Int, body: String) {
        var readiness = try get(port: port, "/readyz")
        let deadline = ContinuousClock.now + .seconds(30)
        while readiness.status != 200, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(500))
            readiness = try get(port: port, "/readyz")
        }
        return readiness
    }

    /// The port from the worker's `status endpoints listening` log line.
    /// The status port `run`'s worker logs once it has started, waiting up to 30 s for the line.
    static func statusPort(of run: EndToEnd) async throws -> Int {
        _ = await eventually(within: .seconds(30), every: .milliseconds(50)) {
            statusPort(in: run.worker.stderr.text) != nil
        }
        return try #require(statusPort(in: run.worker.stderr.text), "\(run.worker.stderr.text.suffix(2000))")
    }

    static func statusPort(in log: String) -> Int? {
        guard let range = log.range(of: #""http.port":\d+"#, options: .regularExpression) else { return nil }
        return Int(log[range].split(separator: ":").last ?? "")
    }

    /// The worker's own metric names in `text` (PromQL or a scrape): `push_*`, `kafka_*` and `process_*`
    /// identifiers, with a histogram's `_bucket`, `_sum` and `_count` kept as they are written.
    static func metricNames(in text: String) -> Set<String> {
        let pattern = /\b(?:push|kafka|process)_[a-z0-9_]+\b/
        return Set(text.matches(of: pattern).map { String($0.output) })
    }

    /// The sample names of a scrape (the name before `{` or the space).
    static func sampleNames(in scrape: String) -> Set<String> {
        Set(
            scrape.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
                String($0.prefix { $0 != "{" && $0 != " " })
            })
    }

    /// GET through curl: status and body.
    static func get(port: Int, _ path: String) throws -> (status: Int, body: String) {
        let result = try ChildProcessResult.run(
            URL(filePath: "/usr/bin/env"),
            ["curl", "-sS", "--max-time", "5", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }
}
