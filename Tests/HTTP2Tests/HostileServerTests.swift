import Foundation
import HTTP2
import HTTPTypes
import IntegrationSupport
import TestSupport
import Testing

/// Both transports against the project's hostile HTTP/2 server (`Tests/PushSimulator/hostile_h2.py`): no server
/// behaviour makes a transport's thread spin or hoard memory. A spinning loop shows as thread CPU time close to the
/// wall time it spun for; a loop that waits uses a small fraction of it.
@Suite("HTTP/2 transports against a hostile server", .serialized)
struct HostileServerTests {
    /// The CPU time a transport's thread may use, as a fraction of the wall time, while it waits for a server that
    /// says nothing useful: a loop that waits uses well under 1 %, one that spins close to 100 % of a core.
    static let idleCPUShare = 0.1

    @Test(arguments: HTTP2TransportKind.allCases)
    func aTLSRecordSplitAcrossSegmentsIsWaitedForWithoutSpinning(_ kind: HTTP2TransportKind) async throws {
        try await withHostileServer("split-records", kind, pause: 2) { server, client, url in
            let (outcome, cpu, wall) = await measured(client) {
                await result(client, HTTPRequest(method: "GET", url: url + "/x", deadline: .seconds(30)))
            }
            let response = try outcome.get()
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "split")
            #expect(wall >= .seconds(1), "the answer's last byte came after the pause")
            #expect(cpu < wall * Self.idleCPUShare, "thread CPU \(cpu) over \(wall)")
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aServerAllowingNoStreamsTimesTheRequestOutWithoutSpinning(_ kind: HTTP2TransportKind) async throws {
        try await withHostileServer("zero-streams", kind) { server, client, url in
            // The first request goes out before the server's SETTINGS arrive, and is answered; the next waits.
            let first = try await client.send(HTTPRequest(method: "GET", url: url + "/small", deadline: .seconds(30)))
            #expect(first.status == 200)
            let (outcome, cpu, wall) = await measured(client) {
                await result(client, HTTPRequest(method: "GET", url: url + "/x", deadline: .seconds(3)))
            }
            #expect(outcome.failure?.kind == .timeout, "\(outcome)")
            #expect(cpu < wall * Self.idleCPUShare, "thread CPU \(cpu) over \(wall)")
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aServerRefusingEveryStreamIsAskedAgainAfterGrowingPausesWithoutSpinning(_ kind: HTTP2TransportKind)
        async throws
    {
        try await withHostileServer("zero-streams", kind) { server, client, url in
            // No connection yet: every request goes out before the server's SETTINGS arrive, and is refused.
            let (outcome, cpu, wall) = await measured(client) {
                await result(client, HTTPRequest(method: "GET", url: url + "/x", deadline: .seconds(8)))
            }
            let error = try #require(outcome.failure)
            #expect(error.kind == .connectionLost || error.kind == .timeout, "\(error)")
            // Each new connection is a TLS handshake: one per attempt (the first, 5 refused and 1 lost before any
            // response byte may go again), not libcurl's 6 per attempt.
            #expect(client.counts.connectionsOpened <= 7, "\(client.counts)")
            #expect(cpu < wall * Self.idleCPUShare, "thread CPU \(cpu) over \(wall)")
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aServerWithAZeroWindowTimesTheUploadOutWithoutSpinning(_ kind: HTTP2TransportKind) async throws {
        try await withHostileServer("zero-window", kind) { server, client, url in
            let body = Array(repeating: UInt8(ascii: "b"), count: 200_000)  // more than the connection's window
            let (outcome, cpu, wall) = await measured(client) {
                await result(client, HTTPRequest(method: "POST", url: url + "/x", body: body, deadline: .seconds(3)))
            }
            #expect(outcome.failure?.kind == .timeout, "\(outcome)")
            #expect(cpu < wall * Self.idleCPUShare, "thread CPU \(cpu) over \(wall)")
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aResponseOverTheLimitFailsItsStreamWhichIsResetAndCounted(_ kind: HTTP2TransportKind) async throws {
        try await withHostileServer("large-body", kind, count: 96 << 20) { server, client, url in
            let memory = ResidentMemoryPeak()
            let outcome = await result(client, HTTPRequest(method: "GET", url: url + "/big", deadline: .seconds(60)))
            let growth = await memory.stop()
            let error = try #require(outcome.failure)
            #expect(error.kind == .connectionLost)
            #expect(error.message.contains("larger than 1048576 bytes"), "\(error)")
            #expect(client.counts.oversizedResponses == 1)
            #expect(growth < 48 << 20, "resident memory grew by \(growth) bytes")
            // libcurl 7.88 writes a stream's RST_STREAM with the connection's next frames: those of this request.
            let next = try await client.send(HTTPRequest(method: "GET", url: url + "/small", deadline: .seconds(30)))
            #expect(next.status == 200)
            _ = try await server.events(containing: "reset 1 after", within: .seconds(10))
            #expect(!server.printed("completed"), "the server sent the whole body")
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func informationalResponsesBeforeTheAnswerAreSkipped(_ kind: HTTP2TransportKind) async throws {
        try await withHostileServer("early-hints", kind, count: 2000) { _, client, url in
            let response = try await client.send(HTTPRequest(method: "GET", url: url + "/x", deadline: .seconds(30)))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "after the hints")
            #expect(response.header("link") == nil, "the hints' headers are not the answer's")
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func tenThousandInformationalResponsesAreSkippedOrFailTheRequestAsALostConnection(_ kind: HTTP2TransportKind)
        async throws
    {
        try await withHostileServer("early-hints", kind, count: 10_000) { _, client, url in
            let outcome = await result(client, HTTPRequest(method: "GET", url: url + "/x", deadline: .seconds(30)))
            switch (kind, outcome) {
            case (_, .success(let response)):
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self) == "after the hints")
            case (.curl, .failure(let error)):
                // libcurl 7.88 gives up when the hints one read decodes pass about 100 KB of header text: a lost
                // connection, which the senders retry (never `.invalidRequest`, which they record as rejected).
                #expect(error.kind == .connectionLost, "\(error)")
            case (.nghttp2, .failure(let error)):
                Issue.record("nghttp2 failed the request: \(error)")
            }
            let next = try await client.send(HTTPRequest(method: "GET", url: url + "/small", deadline: .seconds(30)))
            #expect(next.status == 200)
        }
    }

    @Test(arguments: ["ping-flood", "settings-flood", "window-update-flood"], HTTP2TransportKind.allCases)
    func aFloodOfControlFramesEndsTheRequestWithoutSpinning(_ mode: String, _ kind: HTTP2TransportKind)
        async throws
    {
        try await withHostileServer(mode, kind) { _, client, url in
            let (outcome, cpu, wall) = await measured(client) {
                await result(client, HTTPRequest(method: "GET", url: url + "/x", deadline: .seconds(4)))
            }
            let error = try #require(outcome.failure)
            #expect(error.kind == .timeout || error.kind == .connectionLost, "\(error)")
            // Reading the flood is work (a request that ends as nghttp2 calls it a flood takes milliseconds); what
            // must not happen is a loop that goes on spinning afterwards.
            #expect(cpu < max(wall * 0.25, .milliseconds(500)), "thread CPU \(cpu) over \(wall)")
        }
    }
}

/// Runs `body` with the hostile server in `mode` and a transport of `kind` trusting its certificate; `url` is the
/// server's origin. Stops both afterwards.
private func withHostileServer(
    _ mode: String, _ kind: HTTP2TransportKind, count: Int? = nil, pause: Double? = nil,
    _ body: (PythonServer, any HTTP2Transport, _ url: String) async throws -> Void
) async throws {
    try await withSimulator { simulator in
        let server = try PythonServer.hostileH2(
            mode: mode, certificatesBesides: simulator.endpoint.caFile, count: count, pause: pause)
        defer { server.stop() }
        let url = "https://127.0.0.1:\(try await server.port())"
        let client = try kind.make(HTTP2TransportConfiguration(extraCAFile: simulator.endpoint.caFile))
        do {
            try await body(server, client, url)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }
}

/// What `work` returned, the CPU time `client`'s thread used meanwhile, and the wall time it took.
private func measured<Value>(
    _ client: any HTTP2Transport, _ work: () async -> Value
) async -> (value: Value, cpu: Duration, wall: Duration) {
    let cpuBefore = client.threadCPUTime
    let started = ContinuousClock.now
    let value = await work()
    return (value, client.threadCPUTime - cpuBefore, ContinuousClock.now - started)
}

/// Follows the process's resident memory (`/proc/self/statm`) every 10 ms from its creation until `stop()`.
private final class ResidentMemoryPeak: Sendable {
    private let sampler: Task<Int, Never>
    private let start = ResidentMemoryPeak.resident()

    init() {
        sampler = Task {
            var peak = 0
            while !Task.isCancelled {
                peak = max(peak, Self.resident())
                try? await Task.sleep(for: .milliseconds(10))
            }
            return max(peak, Self.resident())
        }
    }

    /// How far the peak rose above the resident memory at the start, in bytes.
    func stop() async -> Int {
        sampler.cancel()
        return max(0, await sampler.value - start)
    }

    /// The resident memory of the process in bytes.
    static func resident() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
