import HTTP2
import HTTPTypes
import IntegrationSupport
import TestSupport
import Testing

/// Both transports (libcurl's `CurlTransport` and `NGHTTP2Transport`) against the push simulator over real TLS
/// HTTP/2: the same contract, test by test.
@Suite("HTTP/2 transports against the push simulator", .serialized)
struct HTTP2TransportTests {
    /// Stands for a device token: request paths carry it and no error message may.
    static let token = String(repeating: "c0ffee", count: 10) + "abcd"

    @Test(arguments: HTTP2TransportKind.allCases) func sendsOverTLSTrustingTheSimulatorCA(_ kind: HTTP2TransportKind)
        async throws
    {
        try await withSimulatorAndClient(kind) { simulator, client in
            let response = try await client.send(
                request(
                    simulator, "/echo/\(Self.token)", method: "POST", body: "hello",
                    headers: [
                        HTTPHeader("x-request-id", "1")
                    ]))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello")
            #expect(response.header("X-Echo-Method") == "POST")
            let recorded = try #require(try await simulator.requests().first)
            #expect(recorded.headers == ["x-request-id": "1", "content-length": "5"])
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aHostNameIsResolvedAndTheCertificateVerifiedAgainstIt(_ kind: HTTP2TransportKind) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            let url = "https://localhost:\(simulator.endpoint.port)/echo/\(Self.token)"
            let response = try await client.send(HTTPRequest(method: "GET", url: url, deadline: .seconds(30)))
            #expect(response.status == 200)
            #expect(try await simulator.requests().count == 1)
        }
    }

    /// `localhost` resolves to 127.0.0.1 where the simulator listens: a request for public addresses only is refused
    /// on the address looked up, and nothing is connected to; the same origin without the rule is served.
    @Test(arguments: HTTP2TransportKind.allCases)
    func aNameResolvingToLoopbackIsRefusedToARequestForPublicAddressesOnly(_ kind: HTTP2TransportKind)
        async throws
    {
        try await withSimulatorAndClient(kind) { simulator, client in
            let url = "https://localhost:\(simulator.endpoint.port)/echo/\(Self.token)"
            let refused = HTTPRequest(method: "GET", url: url, deadline: .seconds(30), publicAddressesOnly: true)
            let error = await result(client, refused).failure
            #expect(error?.kind == .addressRefused)
            #expect(error?.description.contains("https://localhost:") == true)
            #expect(error?.description.contains(Self.token) == false)
            #expect(try await simulator.stats().connectionsOpened == 0)
            let response = try await client.send(HTTPRequest(method: "GET", url: url, deadline: .seconds(30)))
            #expect(response.status == 200)
            #expect(try await simulator.requests().count == 1)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aHostThatDoesNotResolveIsAConnectErrorNamingOnlyTheOrigin(_ kind: HTTP2TransportKind) async throws {
        try await withSimulatorAndClient(kind) { _, client in
            let url = "https://no-such-host.invalid/3/device/\(Self.token)"
            let error = await result(client, HTTPRequest(method: "GET", url: url, deadline: .seconds(30))).failure
            #expect(error?.kind == .connect)
            #expect(error?.description.contains("https://no-such-host.invalid") == true)
            #expect(error?.description.contains(Self.token) == false)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aPortNobodyListensOnIsAConnectError(_ kind: HTTP2TransportKind) async throws {
        try await withSimulatorAndClient(kind) { _, client in
            let url = "https://127.0.0.1:1/x"  // a privileged port no test opens
            let error = await result(client, HTTPRequest(method: "GET", url: url, deadline: .seconds(30))).failure
            #expect(error?.kind == .connect)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aServerThatNeverFinishesTheHandshakeIsAConnectErrorAtTheConnectTimeout(_ kind: HTTP2TransportKind)
        async throws
    {
        let listener = try SilentListener()
        let client = try kind.make(HTTP2TransportConfiguration(connectTimeout: .milliseconds(500)))
        let started = ContinuousClock.now
        let url = "https://127.0.0.1:\(listener.port)/3/device/\(Self.token)"
        let error = await result(client, HTTPRequest(method: "GET", url: url, deadline: .seconds(20))).failure
        let elapsed = ContinuousClock.now - started
        await client.shutdown()
        #expect(error?.kind == .connect)
        #expect(error?.description.contains(Self.token) == false)
        #expect(elapsed < .seconds(10), "the connect timeout, not the request's deadline, ended it")
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aServerThatClosesEveryConnectionDuringTheHandshakeFailsTheRequestsPromptly(_ kind: HTTP2TransportKind)
        async throws
    {
        let server = try PythonServer.closingEveryConnection()
        defer { server.stop() }
        let client = try kind.make(HTTP2TransportConfiguration())
        let url = "https://127.0.0.1:\(try await server.port())/3/device/\(Self.token)"
        let (results, elapsed) = await sendAllThenShutDown(client, url: url, count: 20)
        #expect(results.allSatisfy { $0.failure?.kind == .connectionLost || $0.failure?.kind == .tls })
        #expect(results.allSatisfy { $0.failure?.description.contains(Self.token) == false })
        #expect(elapsed < .seconds(15), "failed at once, not reconnecting until the deadline")
    }

    @Test(arguments: HTTP2TransportKind.allCases) func bodiesLargerThanTheFlowControlWindowsGoBothWays(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            let body = String(repeating: "0123456789abcdef", count: 20_000)
            let responses = await sendAll(
                client, (0..<4).map { _ in request(simulator, "/echo", method: "PUT", body: body) })
            for response in responses {
                let response = try response.get()
                #expect(response.body.count == body.utf8.count)
                #expect(response.header("x-echo-method") == "PUT")
            }
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func completesFiveThousandConcurrentRequestsOverAtMostFourConnections(
        _ kind: HTTP2TransportKind
    ) async throws {
        let configuration = HTTP2TransportConfiguration(maxConnectionsPerHost: 4, maxStreamsPerConnection: 100)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            let requests = (0..<5000).map { request(simulator, "/echo/\($0)", method: "POST", body: "{\"n\":\($0)}") }
            let results = await sendAll(client, requests)
            #expect(results.filter { (try? $0.get().status) == 200 }.count == 5000)
            let stats = try await simulator.stats()
            #expect(stats.connectionsOpened <= 4)
            #expect(stats.streams == 5000)
            #expect(stats.maxConcurrentStreamsSeen <= 100)
            #expect(client.counts == HTTP2TransportCounts(connectionsOpened: stats.connectionsOpened, resends: 0))
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func aResponseLargerThanOneMebibyteFailsItsStreamAndTheConnectionGoesOn(_ kind: HTTP2TransportKind) async throws {
        try await withSimulatorAndClient(kind) { (simulator: PushSimulator, client: any HTTP2Transport) async throws in
            let large = String(repeating: "0123456789abcdef", count: (1 << 20) / 16 + 4096)
            let error = await result(client, request(simulator, "/echo", method: "POST", body: large)).failure
            #expect(error?.kind == .connectionLost)
            #expect(error?.message.contains("larger than 1048576 bytes") == true)
            #expect(client.counts.oversizedResponses == 1)
            #expect(try await client.send(request(simulator, "/echo", method: "POST", body: "small")).status == 200)
            #expect(try await simulator.stats().connectionsOpened == 1)
        }
    }

    /// A transport keeping only some response headers (the worker's keeps those its provider clients read) hands over
    /// only those, and reads the rest only to bound the response.
    @Test(arguments: HTTP2TransportKind.allCases) func keepsOnlyTheNamedResponseHeaders(_ kind: HTTP2TransportKind)
        async throws
    {
        let configuration = HTTP2TransportConfiguration(keptResponseHeaders: KeptResponseHeaders(["X-Echo-Method"]))
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            let response = try await client.send(
                request(simulator, "/echo/\(Self.token)", method: "POST", body: "hello"))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello")
            #expect(response.headers.map { $0.name.lowercased() } == ["x-echo-method"])
            #expect(response.header("x-echo-method") == "POST")
        }
    }

    /// Also with the responses' `content-length` not kept: the curl transport reads a response's declared length
    /// whether or not its header is kept.
    @Test(arguments: HTTP2TransportKind.allCases, [KeptResponseHeaders.all, KeptResponseHeaders(["x-echo-method"])])
    func goawayInTheMiddleLosesNoRequest(_ kind: HTTP2TransportKind, _ kept: KeptResponseHeaders) async throws {
        try await withSimulatorAndClient(kind, HTTP2TransportConfiguration(keptResponseHeaders: kept)) {
            simulator, client in
            try await simulator.setFaults(#"{"goaway_after_streams": 250}"#)
            let requests = (0..<2000).map {
                request(simulator, "/echo/\(Self.token)", headers: [HTTPHeader("x-request-id", "\($0)")])
            }
            let results = await sendAll(client, requests)
            #expect(results.compactMap(\.failure) == [])
            #expect(results.filter { (try? $0.get().status) == 200 }.count == 2000)
            #expect(try await simulator.stats().goawaysSent >= 1)
            // The streams above the GOAWAY's last stream id were refused: both transports count them as they go again.
            #expect(client.counts.resends >= 1)
            let answered = try await simulator.requests().filter { $0.status == 200 }
            #expect(Set(answered.compactMap { $0.headers["x-request-id"] }).count == 2000)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases)
    func connectionResetMidRunEndsEveryRequestWithAResponseOrConnectionLost(_ kind: HTTP2TransportKind) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            try await simulator.setFaults(#"{"reset_after_streams": 150}"#)
            let requests = (0..<1000).map { _ in request(simulator, "/echo/\(Self.token)") }
            let results = await sendAll(client, requests)
            #expect(results.count == 1000)
            for result in results {
                switch result {
                case .success(let response): #expect(response.status == 200)
                case .failure(let error):
                    #expect(error.kind == .connectionLost)
                    #expect(!error.description.contains(Self.token))
                }
            }
            #expect(try await simulator.stats().connectionsReset >= 1)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func stalledStreamHitsItsDeadlineWithoutBlockingOthers(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            try await simulator.addFaultRule(#"{"path": "^/stall", "stall": true}"#)
            async let stalled = result(client, request(simulator, "/stall/\(Self.token)", deadline: .seconds(1)))
            let others = await sendAll(client, (0..<200).map { _ in request(simulator, "/echo") })
            #expect(others.filter { (try? $0.get().status) == 200 }.count == 200)
            let error = try #require(await stalled.failure)
            #expect(error.kind == .timeout)
            #expect(!error.description.contains(Self.token))
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aRequestQueuedBehindTheStreamLimitTimesOutAtItsDeadlineUnsent(
        _ kind: HTTP2TransportKind
    ) async throws {
        let configuration = HTTP2TransportConfiguration(maxConnectionsPerHost: 1, maxStreamsPerConnection: 1)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            try await simulator.addFaultRule(#"{"path": "^/stall", "stall": true}"#)
            let stalled = Task { await result(client, request(simulator, "/stall", deadline: .seconds(120))) }
            #expect(try await eventually(every: .milliseconds(50)) { try await simulator.requests().count == 1 })
            let queued = await result(client, request(simulator, "/echo/\(Self.token)", deadline: .milliseconds(300)))
            #expect(queued.failure?.kind == .timeout)
            #expect(queued.failure?.description.contains(Self.token) == false)
            stalled.cancel()
            #expect(await stalled.value.failure?.kind == .cancelled)
            #expect(try await simulator.requests().map(\.path) == ["/stall"])
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func cleartextHTTP1OriginsGetOneRequestPerConnectionAtATime(
        _ kind: HTTP2TransportKind
    ) async throws {
        let configuration = HTTP2TransportConfiguration(maxConnectionsPerHost: 2)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            let url = "http://127.0.0.1:\(simulator.endpoint.controlPort)/health"
            let requests = (0..<50).map { _ in HTTPRequest(method: "GET", url: url, deadline: .seconds(60)) }
            let results = await sendAll(client, requests)
            #expect(results.filter { (try? $0.get().status) == 200 }.count == 50)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aCAThatDidNotSignTheServerFailsWithATLSError(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulator { simulator in
            for caFile in [simulator.endpoint.otherCAFile, nil] {
                let client = try kind.make(HTTP2TransportConfiguration(extraCAFile: caFile))
                let error = await result(client, request(simulator, "/echo/\(Self.token)")).failure
                await client.shutdown()
                #expect(error?.kind == .tls)
                #expect(error?.message.contains("not trusted") == true)
                #expect(error?.description.contains(Self.token) == false)
            }
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func anUnreadableCAFileFailsAtCreation(_ kind: HTTP2TransportKind) {
        #expect(throws: HTTPError.self) {
            try kind.make(HTTP2TransportConfiguration(extraCAFile: "/nonexistent/ca.pem"))
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func cancellingTheCallingTaskRemovesItsTransfer(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            try await simulator.addFaultRule(#"{"path": "^/stall", "stall": true}"#)
            let stalled = request(simulator, "/stall/\(Self.token)", deadline: .seconds(120))
            let task = Task { await result(client, stalled) }
            #expect(try await eventually(every: .milliseconds(50)) { try await simulator.requests().count == 1 })
            task.cancel()
            let error = try #require(await task.value.failure)
            #expect(error.kind == .cancelled)
            #expect(!error.description.contains(Self.token))
            // libcurl 7.88 queues the stream's RST_STREAM and writes it with the connection's next frames.
            #expect(try await client.send(request(simulator, "/echo")).status == 200)
            #expect(
                try await eventually(every: .milliseconds(50)) { try await simulator.stats().streamsResetByClient == 1 }
            )
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func sendsOneStreamAtATimeUntilTheFirstSuccess(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind, HTTP2TransportConfiguration()) { simulator, client in
            try await simulator.addFaultRule(#"{"status": 403, "times": 3}"#)
            let oneStream = (0..<40).map { _ in
                var request = request(simulator, "/echo")
                request.oneStreamUntilOriginSucceeds = true
                return request
            }
            let results = await sendAll(client, oneStream)
            #expect(
                results.compactMap { try? $0.get().status }.sorted() == Array(repeating: 200, count: 37) + [
                    403, 403, 403,
                ])
            let recorded = try await simulator.requests().sorted { $0.seq < $1.seq }
            #expect(recorded.prefix(4).map(\.concurrent) == [1, 1, 1, 1])
            #expect(recorded.prefix(4).map(\.status) == [403, 403, 403, 200])
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func anOriginThatNeverSucceededIsNotHeldToOneStreamUnlessAsked(
        _ kind: HTTP2TransportKind
    ) async throws {
        let configuration = HTTP2TransportConfiguration(maxConnectionsPerHost: 1)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            try await simulator.addFaultRule(#"{"status": 403, "latency_ms": 300}"#)
            let results = await sendAll(client, (0..<8).map { _ in request(simulator, "/echo") })
            #expect(results.compactMap { try? $0.get().status } == Array(repeating: 403, count: 8))
            let recorded = try await simulator.requests()
            #expect(recorded.map(\.concurrent).max() ?? 0 > 1, "\(recorded.map(\.concurrent))")
        }
    }

    /// A request with 50 ms or less of its deadline left when its turn comes is not sent (it would time out after the
    /// server took it): it fails `.timeout` and the server never sees it; on the same connection, one with more time is
    /// sent. Loopback's connection is open first, so the 40 ms one does not wait for it.
    @Test(arguments: HTTP2TransportKind.allCases) func aRequestWithTooLittleTimeLeftIsNotSent(
        _ kind: HTTP2TransportKind
    ) async throws {
        let configuration = HTTP2TransportConfiguration(maxConnectionsPerHost: 1)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            #expect(try await client.send(request(simulator, "/echo/first")).status == 200)
            let error = await result(client, request(simulator, "/echo/late", deadline: .milliseconds(40))).failure
            #expect(error?.kind == .timeout)
            let timely = request(simulator, "/echo/timely", deadline: .milliseconds(2_000))
            #expect(try await client.send(timely).status == 200)
            let paths = try await simulator.requests().map(\.path)
            #expect(paths == ["/echo/first", "/echo/timely"])
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aServerStreamLimitBelowTheClientsDoesNotHang(
        _ kind: HTTP2TransportKind
    ) async throws {
        let configuration = HTTP2TransportConfiguration(maxConnectionsPerHost: 2, maxStreamsPerConnection: 100)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            try await simulator.setFaults(#"{"max_concurrent_streams": 5}"#)
            let results = await sendAll(client, (0..<500).map { _ in request(simulator, "/echo") })
            let failures = results.compactMap { $0.failure.map { "\($0.kind): \($0)" } }
            #expect(failures.isEmpty, "\(failures.count) failed, the first: \(failures.prefix(3))")
            #expect(results.filter { (try? $0.get().status) == 200 }.count == 500)
            #expect(try await simulator.stats().maxConcurrentStreamsSeen <= 5)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func refusedStreamsAreResentAndCountedHoweverManyCameBefore(
        _ kind: HTTP2TransportKind
    ) async throws {
        // One request at a time, so libcurl's transfers share one easy handle, which counts libcurl's own retries
        // until a reset: at 5 it failed the next refusal as a send error, a loss, and a second loss ended the request.
        let configuration = HTTP2TransportConfiguration(maxConnectionsPerHost: 1, maxStreamsPerConnection: 1)
        try await withSimulatorAndClient(kind, configuration) { simulator, client in
            try await simulator.addFaultRule(#"{"reset_stream": 7, "times": 5, "path": "^/echo/before"}"#)
            #expect(try await client.send(request(simulator, "/echo/before")).status == 200)
            // Refused five times, then lost with its connection before any response byte: each allowed.
            try await simulator.addFaultRule(#"{"reset_stream": 7, "times": 5, "path": "^/echo/after"}"#)
            try await simulator.addFaultRule(#"{"reset_connection": true, "times": 1, "path": "^/echo/after"}"#)
            let after = await result(client, request(simulator, "/echo/after"))
            #expect(after.failure == nil)
            #expect(try after.get().status == 200)
            #expect(try await simulator.requests().filter { $0.path.hasPrefix("/echo/after") }.count == 7)
            #expect(client.counts.resends == 11)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func shutdownCancelsOutstandingRequestsAndRefusesNewOnes(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            try await simulator.addFaultRule(#"{"path": "^/stall", "stall": true}"#)
            let stalled = request(simulator, "/stall/\(Self.token)", deadline: .seconds(120))
            let tasks = (0..<5).map { _ in Task { await result(client, stalled) } }
            #expect(try await eventually(every: .milliseconds(50)) { try await simulator.requests().count == 5 })
            await client.shutdown()
            for task in tasks {
                #expect(await task.value.failure?.kind == .cancelled)
            }
            #expect(await result(client, stalled).failure?.kind == .cancelled)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aURLThatIsNotAbsoluteHTTPIsAnInvalidRequest(
        _ kind: HTTP2TransportKind
    ) async throws {
        let client = try kind.make(HTTP2TransportConfiguration())
        for url in ["/3/device/\(Self.token)", "ftp://host/\(Self.token)", "https:///\(Self.token)"] {
            let error = await result(client, HTTPRequest(method: "GET", url: url, deadline: .seconds(1))).failure
            #expect(error?.kind == .invalidRequest)
            #expect(error?.description.contains(Self.token) == false)
        }
        await client.shutdown()
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aHeaderWithALineBreakIsAnInvalidRequest(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulatorAndClient(kind) { simulator, client in
            let injected = request(simulator, "/echo/\(Self.token)", headers: [HTTPHeader("x-a", "b\r\nx-b: c")])
            let error = try #require(await result(client, injected).failure)
            #expect(error.kind == .invalidRequest)
            #expect(!error.description.contains(Self.token))
        }
    }
}

/// What only the nghttp2 transport does, against the push simulator.
@Suite("NGHTTP2Transport against the push simulator", .serialized)
struct NGHTTP2TransportTests {
    @Test func aTLSServerThatChoosesHTTP1IsServedThroughTheLibcurlClient() async throws {
        try await withSimulator { simulator in
            let server = try PythonServer.http1TLS(certificatesBesides: simulator.endpoint.caFile)
            defer { server.stop() }
            let client = try NGHTTP2Transport(
                configuration: HTTP2TransportConfiguration(extraCAFile: simulator.endpoint.caFile))
            let url = "https://127.0.0.1:\(try await server.port())/x/\(HTTP2TransportTests.token)"
            let results = await sendAll(
                client, (0..<5).map { _ in HTTPRequest(method: "GET", url: url, deadline: .seconds(30)) })
            await client.shutdown()
            #expect(results.compactMap { try? String(decoding: $0.get().body, as: UTF8.self) }.count == 5)
            #expect(results.allSatisfy { (try? $0.get().header("x-served-by")) == "http/1.1" })
        }
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",  // not HTTP/2 at all
        String(repeating: "\u{0}\u{ff}\u{7f}", count: 2000),  // frames of absurd lengths and types
    ])
    func aServerSpeakingGarbageAfterChoosingH2FailsTheRequestsPromptly(garbage: String) async throws {
        try await withSimulator { simulator in
            let server = try PythonServer.h2Garbage(certificatesBesides: simulator.endpoint.caFile, garbage: garbage)
            defer { server.stop() }
            let client = try NGHTTP2Transport(
                configuration: HTTP2TransportConfiguration(extraCAFile: simulator.endpoint.caFile))
            let url = "https://127.0.0.1:\(try await server.port())/3/device/\(HTTP2TransportTests.token)"
            let (results, elapsed) = await sendAllThenShutDown(client, url: url, count: 10)
            #expect(results.allSatisfy { $0.failure?.kind == .connectionLost }, "\(results.compactMap(\.failure))")
            #expect(results.allSatisfy { $0.failure?.description.contains(HTTP2TransportTests.token) == false })
            #expect(elapsed < .seconds(15))
        }
    }

    @Test func aConnectionIdleLongerThanTheTimeoutIsClosedAndTheNextRequestOpensANewOne() async throws {
        let configuration = HTTP2TransportConfiguration(idleConnectionTimeout: .seconds(1))
        try await withSimulatorAndClient(.nghttp2, configuration) {
            (simulator: PushSimulator, client: any HTTP2Transport) async throws in
            #expect(try await client.send(request(simulator, "/echo")).status == 200)
            #expect(try await client.send(request(simulator, "/echo")).status == 200)
            // Back to back they share a connection (two only if the machine stalled the test for a second).
            let opened = try await simulator.stats().connectionsOpened
            #expect(opened >= 1 && opened <= 2)
            try await Task.sleep(for: .milliseconds(2500))
            #expect(try await client.send(request(simulator, "/echo")).status == 200)
            #expect(try await simulator.stats().connectionsOpened == opened + 1)
        }
    }

    @Test func responsesOfManyMegabytesInFlightAtOnceAllArrive() async throws {
        try await withSimulatorAndClient(.nghttp2) {
            (simulator: PushSimulator, client: any HTTP2Transport) async throws in
            let body = String(repeating: "0123456789abcdef", count: 60_000)  // 960 KB each
            let responses = await sendAll(
                client, (0..<8).map { _ in request(simulator, "/echo", method: "PUT", body: body) })
            #expect(responses.compactMap { try? $0.get().body.count } == Array(repeating: body.utf8.count, count: 8))
        }
    }
}
