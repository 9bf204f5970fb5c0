import HTTP2
import HTTPTypes
import IntegrationSupport
import Synchronization
import TestSupport
import Testing

/// `sendAll` of both transports against the push simulator: a group handed to the loop together keeps every
/// guarantee of one `send` per request, and each request is answered once, as it finishes.
@Suite("HTTP/2 transports sending a group at once", .serialized)
struct SendAllTests {
    static let token = HTTP2TransportTests.token

    @Test(arguments: HTTP2TransportKind.allCases) func eachAnswerCarriesTheIndexOfItsRequest(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            // Later requests answer sooner: the order of the answers is not the order of the requests.
            try await simulator.addFaultRule(#"{"path": "^/echo/slow", "latency_ms": 300}"#)
            let requests = (0..<60).map { index in
                request(
                    simulator, index % 3 == 0 ? "/echo/slow/\(index)" : "/echo/\(index)", method: "POST",
                    body: "\(index)")
            }
            let results = await answers(client, requests)
            #expect(results.count == 60)
            #expect(results.map { try? String(decoding: $0.get().body, as: UTF8.self) } == (0..<60).map { "\($0)" })
            #expect(try await simulator.stats().streams == 60)
        }
    }

    /// A stalled request holds nobody's answer: the others of its group are answered while it waits.
    @Test(arguments: HTTP2TransportKind.allCases) func eachRequestIsAnsweredAsItFinishesNotWithTheSlowest(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            try await simulator.addFaultRule(#"{"path": "^/stall", "stall": true}"#)
            let requests =
                [request(simulator, "/stall/\(Self.token)", deadline: .seconds(120))]
                + (1...10).map { request(simulator, "/echo/\($0)", method: "POST", body: "\($0)") }
            let answered = Mutex<[Int: Result<HTTPResponse, HTTPError>]>([:])
            let task = Task {
                await client.sendAll(requests) { index, result in
                    answered.withLock { #expect($0.updateValue(result, forKey: index) == nil, "answered twice") }
                }
            }
            #expect(await eventually(every: .milliseconds(20)) { answered.withLock { $0.count } == 10 })
            #expect(answered.withLock { $0[0] } == nil)
            task.cancel()
            await task.value
            let results = answered.withLock { $0 }
            #expect(results.count == 11)
            #expect(results[0]?.failure?.kind == .cancelled)
            #expect((1...10).allSatisfy { (try? results[$0]?.get().body) == Array("\($0)".utf8) })
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aGroupLargerThanTheOutstandingBoundGoesInChunksAndCompletes(
        _ kind: HTTP2TransportKind
    ) async throws {
        let configuration = HTTP2TransportConfiguration(maxOutstandingRequests: 7)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            try await simulator.addFaultRule(#"{"path": "^/echo", "latency_ms": 20}"#)
            let requests = (0..<100).map { request(simulator, "/echo/\($0)", method: "POST", body: "\($0)") }
            async let other = answers(client, requests)
            let results = await answers(client, requests)
            #expect(results.map { try? String(decoding: $0.get().body, as: UTF8.self) } == (0..<100).map { "\($0)" })
            #expect(await other.compactMap { try? $0.get().status } == Array(repeating: 200, count: 100))
            let stats = try await simulator.stats()
            #expect(stats.streams == 200)
            #expect(stats.maxConcurrentStreamsSeen <= 7)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aRequestPastItsDeadlineFailsAloneAndTheRestOfTheGroupIsAnswered(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            try await simulator.addFaultRule(#"{"path": "^/stall", "stall": true}"#)
            var requests = (0..<20).map { request(simulator, "/echo/\($0)") }
            requests.insert(request(simulator, "/stall/\(Self.token)", deadline: .milliseconds(500)), at: 7)
            let results = await answers(client, requests)
            #expect(results[7].failure?.kind == .timeout)
            #expect(results[7].failure?.description.contains(Self.token) == false)
            #expect(results.enumerated().filter { $0.offset != 7 }.allSatisfy { (try? $0.element.get().status) == 200 })
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func badRequestsAndHTTP1OriginsInAGroupKeepTheirPlaces(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            let http1 = HTTPRequest(
                method: "GET", url: "http://127.0.0.1:\(simulator.endpoint.controlPort)/health", deadline: .seconds(30))
            let results = await answers(
                client,
                [
                    request(simulator, "/echo/a", method: "POST", body: "a"),
                    HTTPRequest(method: "GET", url: "/3/device/\(Self.token)", deadline: .seconds(1)), http1,
                    request(simulator, "/echo/b", method: "POST", body: "b"),
                    request(simulator, "/echo/\(Self.token)", headers: [HTTPHeader("x-a", "b\r\nx-b: c")]), http1,
                ])
            #expect(results.count == 6)
            #expect((try? results[0].get().body) == Array("a".utf8))
            #expect(results[1].failure?.kind == .invalidRequest)
            #expect((try? results[2].get().status) == 200)
            #expect((try? results[3].get().body) == Array("b".utf8))
            #expect(results[4].failure?.kind == .invalidRequest)
            #expect((try? results[5].get().status) == 200)
            #expect(results.compactMap(\.failure).allSatisfy { !$0.description.contains(Self.token) })
            #expect(await answers(client, []).isEmpty)
        }
    }

    /// Cancelling the task that waits for a group finishes every request of it at once (the stalled ones with
    /// `.cancelled`, their streams reset), and its permits come back: the next group gets all of them.
    @Test(arguments: HTTP2TransportKind.allCases) func cancellingTheCallingTaskFinishesEveryRequestOfTheGroup(
        _ kind: HTTP2TransportKind
    ) async throws {
        let configuration = HTTP2TransportConfiguration(maxOutstandingRequests: 20)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            try await simulator.addFaultRule(#"{"path": "^/stall", "stall": true}"#)
            // 30 requests: 20 go at once; the 5 answered make room for 5 more; 5 wait for room that never comes.
            let requests = (0..<30).map { index in
                index < 5
                    ? request(simulator, "/echo/\(index)")
                    : request(simulator, "/stall/\(Self.token)", deadline: .seconds(120))
            }
            let task = Task { await answers(client, requests) }
            #expect(try await eventually(every: .milliseconds(50)) { try await simulator.requests().count == 25 })
            task.cancel()
            let results = await task.value
            #expect(results.count == 30)
            #expect(results.prefix(5).allSatisfy { (try? $0.get().status) == 200 })
            #expect(results.dropFirst(5).allSatisfy { $0.failure?.kind == .cancelled })
            #expect(results.compactMap(\.failure).allSatisfy { !$0.description.contains(Self.token) })
            let next = await answers(client, (0..<20).map { request(simulator, "/echo/\($0)") })
            #expect(next.allSatisfy { (try? $0.get().status) == 200 })
            // libcurl 7.88 writes the RST_STREAMs with the connection's next frames.
            #expect(
                try await eventually(every: .milliseconds(50)) {
                    try await simulator.stats().streamsResetByClient == 20
                }
            )
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aTaskCancelledBeforeItSendsAGroupSendsNothing(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await answers(client, (0..<10).map { request(simulator, "/echo/\($0)") })
            }
            let results = await task.value
            #expect(results.count == 10)
            #expect(results.allSatisfy { $0.failure?.kind == .cancelled })
            let recorded = try await simulator.requests()
            #expect(recorded.isEmpty)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func shuttingDownTheTransportMidGroupFinishesEveryRequest(
        _ kind: HTTP2TransportKind
    ) async throws {
        let configuration = HTTP2TransportConfiguration(maxOutstandingRequests: 10)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            try await simulator.addFaultRule(#"{"path": "^/stall", "stall": true}"#)
            let requests = (0..<25).map { _ in request(simulator, "/stall/\(Self.token)", deadline: .seconds(120)) }
            let task = Task { await answers(client, requests) }
            #expect(try await eventually(every: .milliseconds(50)) { try await simulator.requests().count == 10 })
            await client.shutdown()
            let results = await task.value
            #expect(results.count == 25)
            #expect(results.allSatisfy { $0.failure?.kind == .cancelled })
            #expect(await answers(client, requests).allSatisfy { $0.failure?.kind == .cancelled })
        }
    }
}

/// Every answer of `client.sendAll(requests)`, in the order of the requests; each request answered exactly once.
func answers(_ client: any HTTPTransport, _ requests: [HTTPRequest]) async -> [Result<HTTPResponse, HTTPError>] {
    await answersInOrder(of: requests.count) { answer in await client.sendAll(requests, answer: answer) }
}
