import Foundation
import HTTP2
import HTTPTypes
import TestSupport

/// The push simulator (`Tests/PushSimulator/simulator.py`) running as a child process for one test suite.
public final class PushSimulator: Sendable {
    /// What the simulator printed when it became ready.
    public struct Endpoint: Decodable, Sendable {
        public let port: Int
        public let controlPort: Int
        /// The CA that signed the simulator's certificate (what clients trust through `PUSH_CA_FILE`).
        public let caFile: String
        /// A CA unrelated to the simulator, for wrong-trust tests.
        public let otherCAFile: String
        /// The mutual-TLS listener: the same routes, for clients presenting a certificate of the client CA.
        public let mtlsPort: Int
        /// The CA whose client certificates the mutual-TLS listener accepts.
        public let clientCAFile: String

        enum CodingKeys: String, CodingKey {
            case port
            case controlPort = "control_port"
            case caFile = "ca_file"
            case otherCAFile = "other_ca_file"
            case mtlsPort = "mtls_port"
            case clientCAFile = "client_ca_file"
        }
    }

    public let endpoint: Endpoint
    private let process: ChildProcess
    private let control: CurlTransport
    /// The simulator's certificates and keys; removed by `stop()`.
    private let directory: String

    /// `https://127.0.0.1:PORT`, the base URL to send provider requests to.
    public var baseURL: String { "https://127.0.0.1:\(endpoint.port)" }

    /// `https://127.0.0.1:MTLS_PORT`, the base URL of the listener that requires a client certificate.
    public var mutualTLSBaseURL: String { "https://127.0.0.1:\(endpoint.mtlsPort)" }

    private init(endpoint: Endpoint, process: ChildProcess, directory: String) throws(HTTPError) {
        self.endpoint = endpoint
        self.directory = directory
        self.process = process
        // The recorded requests of a long test run are many megabytes.
        self.control = try CurlTransport(configuration: HTTP2TransportConfiguration(maxResponseBytes: 1 << 30))
    }

    /// Starts the simulator with its certificates and keys in a fresh temporary directory (its `TMPDIR` too, so
    /// that everything it writes goes there); `routes` is its `--routes`.
    public static func start(routes: String? = nil) async throws -> PushSimulator {
        let certDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-simulator-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: certDirectory, withIntermediateDirectories: true)
        let process = try ChildProcess(
            Repository.python,
            [
                Repository.path("Tests/PushSimulator/simulator.py").path, "--cert-dir", certDirectory,
                "--exit-on-stdin-eof",
            ] + (routes.map { ["--routes", $0] } ?? []),
            environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": certDirectory]) { _, new in new })
        let line: String
        do {
            line = try await process.stdout.line(0, within: .seconds(60))
        } catch {
            process.signal(SIGTERM)
            throw SimulatorError(
                "the push simulator did not print its ready line: \(error); stderr: \(process.stderr.text.suffix(2000))"
            )
        }
        guard let endpoint = try? JSONDecoder().decode(Endpoint.self, from: Data(line.utf8)) else {
            process.signal(SIGTERM)
            throw SimulatorError("the push simulator's ready line is not its endpoint: '\(line)'")
        }
        return try PushSimulator(endpoint: endpoint, process: process, directory: certDirectory)
    }

    /// Stops the simulator and its control client, and removes its directory.
    public func stop() async {
        await control.shutdown()
        process.closeInput()
        process.signal(SIGTERM)
        _ = await process.exitStatus(within: .seconds(30))
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Calls the control API (`method path` with a JSON `body`) and decodes its JSON answer as `T`.
    public func control<T: Decodable>(
        _ method: String,
        _ path: String,
        body: String = "",
        as type: T.Type = ControlAnswer.self
    ) async throws -> T {
        let request = HTTPRequest(
            method: method,
            url: "http://127.0.0.1:\(endpoint.controlPort)\(path)",
            headers: [HTTPHeader("content-type", "application/json")],
            body: Array(body.utf8),
            deadline: .seconds(30)
        )
        let response = try await control.send(request)
        guard response.status == 200 else {
            throw SimulatorError(
                "control \(method) \(path) answered \(response.status): "
                    + String(decoding: response.body, as: UTF8.self))
        }
        return try JSONDecoder.snakeCase.decode(T.self, from: Data(response.body))
    }

    /// Connection and stream counters.
    public func stats() async throws -> Stats { try await control("GET", "/stats", as: Stats.self) }

    /// Recorded requests with a sequence number above `since`.
    public func requests(since: Int = 0) async throws -> [RecordedRequest] {
        try await control("GET", "/requests?since=\(since)", as: RecordedRequests.self).requests
    }

    /// Replaces all faults with `json` (see Tests/PushSimulator/control.py).
    public func setFaults(_ json: String) async throws { _ = try await control("POST", "/faults", body: json) }

    /// Appends one fault rule given as `json`.
    public func addFaultRule(_ json: String) async throws { _ = try await control("POST", "/faults/rules", body: json) }

    /// Clears records, statistics and faults.
    public func reset() async throws { _ = try await control("POST", "/reset") }
}

/// Any JSON answer whose content does not matter.
public struct ControlAnswer: Decodable, Sendable {}

/// The simulator's connection and stream counters (`GET /stats`).
public struct Stats: Decodable, Sendable {
    public let connectionsOpened: Int
    public let connectionsOpen: Int
    public let streams: Int
    public let maxConcurrentStreamsSeen: Int
    public let streamsResetByClient: Int
    /// Streams refused with REFUSED_STREAM because they exceeded the advertised SETTINGS_MAX_CONCURRENT_STREAMS.
    public let streamsRefused: Int
    public let goawaysSent: Int
    public let connectionsReset: Int
}

/// One request as the simulator recorded it.
public struct RecordedRequest: Decodable, Sendable {
    public let seq: Int
    public let connection: Int
    public let stream: Int
    public let method: String
    public let path: String
    public let headers: [String: String]
    public let body: String
    /// Streams open on the connection when this one arrived, itself included.
    public let concurrent: Int
    /// True if the request came over a connection that presented a verified client certificate.
    public let clientCertificate: Bool
    /// The status answered; nil if the request got no response (stall, reset).
    public let status: Int?
    public let fault: String?
    /// When the simulator had the request, in seconds since 1970 (its clock).
    public let receivedAt: Double?
}

struct RecordedRequests: Decodable {
    let requests: [RecordedRequest]
}

/// The simulator could not be started or its control API failed.
public struct SimulatorError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension JSONDecoder {
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
