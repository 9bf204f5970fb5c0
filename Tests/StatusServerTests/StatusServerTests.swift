import Foundation
import IntegrationSupport
import Observability
import TestSupport
import Testing

@testable import StatusServer

@Suite("Status endpoints over loopback TCP", .serialized)
struct StatusServerTests {
    let registry = MetricsRegistry()
    let liveness = HealthChecks()
    let readiness = HealthChecks()
    let logger = Logger(label: "test", level: .critical)

    init() {
        readiness.set("kafka.group", passing: false, detail: "not joined")
        readiness.set("providers.breakers", passing: false, detail: "apns open")
    }

    private func startServer(
        _ configuration: HTTPServerConfiguration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    ) throws -> StatusServer {
        try StatusServer.start(
            configuration: configuration, registry: registry, liveness: liveness, readiness: readiness, logger: logger)
    }

    @Test func servesMetricsInPrometheusTextFormat() throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(server.port > 0)
        registry.counter("push_sends_total", help: "Sends.", labels: ["provider": "apns", "status": "delivered"])
            .increment(by: 3)
        let reply = try LoopbackClient.get(port: server.port, "/metrics")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(reply.body == registry.prometheusText())
        #expect(reply.body.contains(#"push_sends_total{provider="apns",status="delivered"} 3"#))
        #expect(reply.headers["content-length"] == String(reply.body.utf8.count))
    }

    @Test func healthzFollowsTheLivenessChecksEvenWhenNotReady() throws {
        let server = try startServer()
        defer { server.stop() }
        liveness.register("poll_loop") { .pass("last poll 5 ms ago") }
        let reply = try LoopbackClient.get(port: server.port, "/healthz")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "application/json")
        #expect(
            reply.body == #"{"checks":{"poll_loop":{"detail":"last poll 5 ms ago","passing":true}},"status":"pass"}"#
                + "\n")

        liveness.register("event_loop") { .fail("no turn for 31 s") }
        let stalled = try LoopbackClient.get(port: server.port, "/healthz")
        #expect(stalled.status == 503)
        #expect(stalled.body.contains(#""event_loop":{"detail":"no turn for 31 s","passing":false}"#))
    }

    @Test func readyzReportsEveryCheckAsJSON() throws {
        let server = try startServer()
        defer { server.stop() }
        let before = try LoopbackClient.get(port: server.port, "/readyz")
        #expect(before.status == 503)
        #expect(
            before.body
                == #"{"checks":{"kafka.group":{"detail":"not joined","passing":false},"#
                + #""providers.breakers":{"detail":"apns open","passing":false}},"status":"fail"}"# + "\n")

        readiness.set("kafka.group", passing: true)
        readiness.set("providers.breakers", passing: true)
        let ready = try LoopbackClient.get(port: server.port, "/readyz?verbose=1")
        #expect(ready.status == 200)
        #expect(ready.body.hasSuffix(#""status":"pass"}"# + "\n"))

        readiness.set("kafka.group", passing: false, detail: "rebalancing")
        let lost = try LoopbackClient.get(port: server.port, "/readyz")
        #expect(lost.status == 503)
        #expect(lost.body.contains(#""kafka.group":{"detail":"rebalancing","passing":false}"#))
    }

    @Test func readyzAnswers200WithAWarningWhenAChecksOnlyConcernIsReported() throws {
        let server = try startServer()
        defer { server.stop() }
        readiness.set("kafka.group", passing: true, detail: "steady")
        readiness.register("providers.breakers") { .warn("open: apns") }
        let reply = try LoopbackClient.get(port: server.port, "/readyz")
        #expect(reply.status == 200)
        #expect(
            reply.body
                == #"{"checks":{"kafka.group":{"detail":"steady","passing":true},"#
                + #""providers.breakers":{"detail":"open: apns","passing":true,"status":"warn"}},"status":"warn"}"#
                + "\n")
    }

    @Test(arguments: ["/", "/metrics/extra", "/health", "/READYZ"])
    func answersNotFoundForOtherPaths(path: String) throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(try LoopbackClient.get(port: server.port, path).status == 404)
    }

    @Test func refusesOtherMethodsAndAnswersHeadWithoutBody() throws {
        let server = try startServer()
        defer { server.stop() }
        let post = try LoopbackClient.get(port: server.port, "/metrics", method: "POST")
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        let head = try LoopbackClient.get(port: server.port, "/healthz", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "30")
        #expect(head.body.isEmpty)
    }

    @Test func dropsMalformedRequestsAndRefusesOversizedHeads() throws {
        let server = try startServer()
        defer { server.stop() }
        // libmicrohttpd closes the connection on a request line it cannot parse, without an answer.
        #expect(
            try LoopbackClient.send(host: "127.0.0.1", port: server.port, bytes: Array("hello\r\n\r\n".utf8)).isEmpty)
        let huge = "GET /metrics HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: 20_000) + "\r\n\r\n"
        #expect(try LoopbackClient.exchange(port: server.port, request: huge).status == 431)
        #expect(try LoopbackClient.get(port: server.port, "/healthz").status == 200)
    }

    @Test func aSilentClientIsClosedAfterTheIdleTimeout() throws {
        let server = try startServer(
            HTTPServerConfiguration(host: "127.0.0.1", port: 0, connectionTimeout: .seconds(1)))
        defer { server.stop() }
        let silent = try LoopbackClient.connect(port: server.port)
        defer { close(silent) }
        let started = ContinuousClock.now
        var byte: UInt8 = 0
        #expect(recv(silent, &byte, 1, 0) == 0)  // end of stream: the server closed it
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test func probesAnswerInMillisecondsBesideIdleAndSlowLorisClients() throws {
        let server = try startServer()
        defer { server.stop() }
        let idle = try (0..<100).map { _ in try LoopbackClient.connect(port: server.port) }
        let slow = try (0..<20).map { _ in try LoopbackClient.connect(port: server.port) }
        defer { for descriptor in idle + slow { close(descriptor) } }
        for descriptor in slow { _ = LoopbackClient.write(descriptor, "GET /metrics HTTP/1.1\r\n") }
        var slowest = Duration.zero
        for round in 0..<10 {
            for descriptor in slow { _ = LoopbackClient.write(descriptor, "X-Slow-\(round): a\r\n") }
            for path in ["/healthz", "/readyz"] {
                let started = ContinuousClock.now
                let reply = try LoopbackClient.get(port: server.port, path)
                slowest = max(slowest, ContinuousClock.now - started)
                #expect(reply.status == (path == "/healthz" ? 200 : 503))
            }
        }
        // Milliseconds when alone; the bound leaves room for a machine shared with other builds.
        #expect(slowest < .milliseconds(500), "slowest probe took \(slowest)")
    }

    @Test func stopClosesTheListeningSocketAndIsIdempotent() throws {
        let server = try startServer()
        let port = server.port
        #expect(try LoopbackClient.get(port: port, "/healthz").status == 200)
        server.stop()
        server.stop()
        #expect(throws: LoopbackClient.ClientError.self) { try LoopbackClient.connect(port: port) }
    }

    @Test func stopReturnsWhileAClientHoldsAConnectionOpen() throws {
        let server = try startServer(
            HTTPServerConfiguration(host: "127.0.0.1", port: 0, connectionTimeout: .seconds(60)))
        let idle = try LoopbackClient.connect(port: server.port)
        defer { close(idle) }
        server.stop()
        #expect(throws: LoopbackClient.ClientError.self) { try LoopbackClient.connect(port: server.port) }
    }

    @Test func listensOnIPv6Loopback() throws {
        let server = try startServer(HTTPServerConfiguration(host: "::1", port: 0))
        defer { server.stop() }
        #expect(try LoopbackClient.get(host: "::1", port: server.port, "/healthz").status == 200)
    }

    @Test func namesTheAddressWhenThePortIsTaken() throws {
        let server = try startServer()
        defer { server.stop() }
        let error = #expect(throws: HTTPServerError.self) {
            try startServer(HTTPServerConfiguration(host: "127.0.0.1", port: server.port))
        }
        #expect(error?.description == "cannot listen on 127.0.0.1:\(server.port): Address already in use")
    }
}
