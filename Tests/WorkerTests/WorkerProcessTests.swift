import Configuration
import Foundation
import IntegrationSupport
import PushCore
import TestSupport
import Testing

/// `push-worker run` built beside the tests, as a child process with only `environment` as its environment.
func workerProcess(environment: [String: String]) throws -> ChildProcess {
    try ChildProcess(ChildProcess.built("push-worker"), ["run"], environment: environment)
}

/// The test broker `kind` (`PUSH_TEST_BROKER`'s unless told: `push-worker dev-broker` with one broker, or Tansu) with
/// the dev broker's topics of `partitions` partitions each, and its bootstrap servers.
func startDevBroker(partitions: Int = 2, kind: TestBroker = .chosen) async throws -> (DevBrokerProcess, String) {
    let broker =
        kind == .tansu
        ? try DevBrokerProcess(tansuWithTopics: DevBrokerConfiguration.defaultTopics, partitions: partitions)
        : try DevBrokerProcess(arguments: ["--brokers", "1", "--partitions", String(partitions)])
    return (broker, try await broker.bootstrapServers(within: .seconds(30)))
}

/// `push-worker run` as a process: configuration refusal, and a clean SIGTERM shutdown against the dev broker.
@Suite(.serialized) struct WorkerProcessTests {
    @Test func aBadSettingStopsTheStartWithOneLineNamingItAndExitCode3() async throws {
        let worker = try workerProcess(environment: ["FCM_SERVICE_ACCOUNT_FILE": "/x.json", "PUSH_BATCH_SIZE": "-1"])
        #expect(await worker.exitStatus() == 3)
        let lines = worker.stderr.lines
        #expect(lines == ["push-worker: invalid PUSH_BATCH_SIZE: '-1' is not a whole number from 1 to 100000"])
    }

    @Test func sigtermDrainsCommitsAndExitsZero() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let account = try serviceAccount(in: directory)

        let (broker, bootstrap) = try await startDevBroker()
        let worker = try workerProcess(environment: [
            "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "FCM_SERVICE_ACCOUNT_FILE": account,
            "FCM_URL": "https://127.0.0.1:9",
            "PUSH_HTTP_PORT": "0", "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_SHUTDOWN_GRACE_SECONDS": "2",
            "KAFKA_SESSION_TIMEOUT_MS": "6000", "KAFKA_HEARTBEAT_INTERVAL_MS": "300",
            "PUSH_WORKER_ID": "worker-test",
        ])
        #expect(await worker.stderr.waitForLine(containing: "partitions assigned"))
        worker.signal(SIGTERM)
        #expect(await worker.exitStatus() == 0)
        #expect(worker.stderr.contains("\"shut down\""))
        _ = try? await broker.terminate()
        // It ran on the librdkafka the harness chose (LibrdkafkaChoice), and said so at start.
        let expected = try LibrdkafkaChoice.chosenVersion()
        #expect(
            worker.stderr.contains("\"kafka.librdkafka\":\"\(expected)\""),
            "expected librdkafka \(expected); the worker's first lines: \(worker.stderr.lines.prefix(3))")
    }

    @Test func aChangedRulesFileIsAppliedAndABadOneRefusedWithoutRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = directory.appendingPathComponent("rules.json")
        try Data(RulesTable.standardJSON.utf8).write(to: rules)
        let (broker, bootstrap) = try await startDevBroker()
        let worker = try workerProcess(environment: [
            "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "FCM_SERVICE_ACCOUNT_FILE": try serviceAccount(in: directory),
            "PUSH_RULES_FILE": rules.path, "PUSH_RULES_CHECK_MS": "100", "PUSH_HTTP_PORT": "0",
            "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_SHUTDOWN_GRACE_SECONDS": "1",
        ])
        // Only once it runs: before that, a bad file would stop the start (exit 3).
        #expect(await worker.stderr.waitForLine(containing: "\"started\""))
        try Data("{\"types\": 7".utf8).write(to: rules)
        #expect(await worker.stderr.waitForLine(containing: "rules reload refused, previous table kept"))
        try Data(RulesTable.standardJSON.utf8).write(to: rules)
        #expect(await worker.stderr.waitForLine(containing: "\"rules reloaded\""))
        worker.signal(SIGTERM)
        #expect(await worker.exitStatus() == 0)
        _ = try? await broker.terminate()
    }

    /// A service-account file (with the shared test RSA key) whose token endpoint nothing listens on.
    func serviceAccount(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("service-account.json").path
        try Data(TestKeys.serviceAccountJSON(tokenURI: "https://127.0.0.1:9/token")).write(
            to: URL(fileURLWithPath: path))
        return path
    }
}
