public import Foundation
import TestSupport

/// `push-worker dev-broker` run as a child process, for integration tests that need a Kafka cluster in
/// another process and want to inject faults into it through its control protocol.
///
/// ```swift
/// let broker = try DevBrokerProcess(arguments: ["--partitions", "3"])
/// let servers = try await broker.bootstrapServers()
/// try await broker.control("broker-down 1")
/// ```
public final class DevBrokerProcess: Sendable {
    /// Something the child process did not do as expected.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let child: ChildProcess
    /// Which broker it is: the mock cluster, or Tansu (whose control protocol answers only `ping`).
    public let kind: TestBroker

    /// Starts `push-worker dev-broker` with `arguments`; `executable` defaults to the `push-worker` built
    /// beside the running test bundle.
    public init(executable: URL? = nil, arguments: [String] = []) throws {
        child = try ChildProcess(executable ?? ChildProcess.built("push-worker"), ["dev-broker"] + arguments)
        kind = .mock
    }

    /// Starts Tansu (`deploy/local/tansu.py`) with `topics` of `partitions` partitions each; it prints the same
    /// ready line as `push-worker dev-broker` and stops on SIGTERM.
    public init(tansuWithTopics topics: [String], partitions: Int) throws {
        child = try ChildProcess(
            Repository.python,
            [
                Repository.path("deploy/local/tansu.py").path, "--partitions", String(partitions), "--topics",
                topics.joined(separator: ","),
            ])
        kind = .tansu
    }

    /// The servers from the broker's first line (`bootstrap.servers=…`), waiting up to `limit` for it.
    public func bootstrapServers(within limit: Duration = .seconds(20)) async throws -> String {
        let prefix = "bootstrap.servers="
        let first = try await line(0, within: limit)
        guard first.hasPrefix(prefix) else { throw Failure(description: "unexpected first line '\(first)'") }
        return String(first.dropFirst(prefix.count))
    }

    /// Sends one control command (see `push-worker dev-broker --help`) and returns its answer line.
    public func send(_ command: String, within limit: Duration = .seconds(20)) async throws -> String {
        let index = child.stdout.count
        child.write(command + "\n")
        return try await line(index, within: limit)
    }

    /// Sends one control command and throws unless it is answered `ok`.
    public func control(_ command: String, within limit: Duration = .seconds(20)) async throws {
        let answer = try await send(command, within: limit)
        guard answer.hasPrefix("ok ") else { throw Failure(description: answer) }
    }

    /// Sends SIGTERM and returns the exit status once the process has exited.
    public func terminate(within limit: Duration = .seconds(20)) async throws -> Int32 {
        child.signal(SIGTERM)
        guard let status = await child.exitStatus(within: limit) else {
            throw Failure(description: "no exit within \(limit)")
        }
        return status
    }

    private func line(_ index: Int, within limit: Duration) async throws -> String {
        do {
            return try await child.stdout.line(index, within: limit)
        } catch let missing as ChildOutputLines.Missing {
            let exit = child.terminationStatus.map { " (exit status \($0))" } ?? ""
            throw Failure(description: "dev broker: \(missing)\(exit)")
        }
    }
}

/// The Kafka broker the integration tests' processes talk to: `push-worker dev-broker` (librdkafka's mock cluster:
/// the default, and the only one with fault injection) or Tansu, a real broker (`deploy/local/tansu.py`), with
/// `PUSH_TEST_BROKER=tansu` (docs/testing.md).
public enum TestBroker: String, Sendable {
    case mock, tansu

    /// The broker `PUSH_TEST_BROKER` names (`mock` when unset).
    public static var chosen: TestBroker {
        ProcessInfo.processInfo.environment["PUSH_TEST_BROKER"] == "tansu" ? .tansu : .mock
    }
}
