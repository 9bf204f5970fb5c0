import Foundation
import Testing

@testable import Observability

@Suite("Status endpoints over loopback TCP", .serialized)
struct StatusServerTests {
    let registry = MetricsRegistry()
    let readiness = Readiness(conditions: ["kafka.connected", "providers.configured"])
    let logger = Logger(label: "test", level: .critical)

    private func startServer(timeout: Duration = .seconds(2)) throws -> StatusServer {
        try StatusServer.start(
            configuration: StatusServerConfiguration(host: "127.0.0.1", port: 0, connectionTimeout: timeout),
            registry: registry, readiness: readiness, logger: logger)
    }

    @Test func servesMetricsInPrometheusTextFormat() throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(server.port > 0)
        PushMetrics(registry: registry).sends(provider: "apns", status: "delivered").increment(by: 3)
        let reply = try LoopbackClient.get(port: server.port, "/metrics")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(reply.body == registry.prometheusText())
        #expect(reply.body.contains(#"push_sends_total{provider="apns",status="delivered"} 3"#))
        #expect(reply.headers["content-length"] == String(reply.body.utf8.count))
    }

    @Test func healthzAnswersWhileTheProcessIsAliveEvenWhenNotReady() throws {
        let server = try startServer()
        defer { server.stop() }
        let reply = try LoopbackClient.get(port: server.port, "/healthz")
        #expect(reply.status == 200)
        #expect(reply.body == "ok\n")
    }

    @Test func readyzFollowsTheReadinessConditions() throws {
        let server = try startServer()
        defer { server.stop() }
        let before = try LoopbackClient.get(port: server.port, "/readyz")
        #expect(before.status == 503)
        #expect(before.body == "not ready: kafka.connected, providers.configured\n")

        readiness.set("kafka.connected", ready: true)
        readiness.set("providers.configured", ready: true)
        let ready = try LoopbackClient.get(port: server.port, "/readyz?verbose=1")
        #expect(ready.status == 200)
        #expect(ready.body == "ready\n")

        readiness.set("kafka.connected", ready: false)
        let lost = try LoopbackClient.get(port: server.port, "/readyz")
        #expect(lost.status == 503)
        #expect(lost.body == "not ready: kafka.connected\n")
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
        #expect(head.headers["content-length"] == "3")
        #expect(head.body.isEmpty)
    }

    @Test func rejectsMalformedAndOversizedRequests() throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(try LoopbackClient.exchange(port: server.port, request: "hello\r\n\r\n").status == 400)
        let huge = "GET /metrics HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: 10_000) + "\r\n\r\n"
        #expect(try LoopbackClient.exchange(port: server.port, request: huge).status == 431)
        #expect(try LoopbackClient.get(port: server.port, "/healthz").status == 200)
    }

    @Test func aSilentClientIsDroppedAtItsDeadlineAndOthersAreServedAfterIt() throws {
        let server = try startServer(timeout: .milliseconds(200))
        defer { server.stop() }
        let silent = try LoopbackClient.connect(port: server.port)
        defer { close(silent) }
        #expect(try LoopbackClient.get(port: server.port, "/healthz").status == 200)
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
        let server = try startServer(timeout: .seconds(60))
        let idle = try LoopbackClient.connect(port: server.port)
        defer { close(idle) }
        server.stop()
        #expect(throws: LoopbackClient.ClientError.self) { try LoopbackClient.connect(port: server.port) }
    }

    @Test func listensOnIPv6Loopback() throws {
        let server = try StatusServer.start(
            configuration: StatusServerConfiguration(host: "::1", port: 0),
            registry: registry, readiness: readiness, logger: logger)
        defer { server.stop() }
        #expect(try LoopbackClient.get(host: "::1", port: server.port, "/healthz").status == 200)
    }

    @Test func namesTheAddressWhenThePortIsTaken() throws {
        let server = try startServer()
        defer { server.stop() }
        let error = #expect(throws: StatusServerError.self) {
            try StatusServer.start(
                configuration: StatusServerConfiguration(host: "127.0.0.1", port: server.port),
                registry: registry, readiness: readiness, logger: logger)
        }
        #expect(error?.description == "cannot listen on 127.0.0.1:\(server.port): Address already in use")
    }
}

@Suite("Status server configuration and request parsing")
struct StatusServerConfigurationTests {
    @Test func readsPortAndHostFromTheEnvironmentWithDefaults() throws {
        #expect(try StatusServerConfiguration.fromEnvironment([:]) == StatusServerConfiguration())
        let configured = try StatusServerConfiguration.fromEnvironment([
            "PUSH_HTTP_PORT": "9100", "PUSH_HTTP_HOST": "::",
        ])
        #expect(configured.port == 9100)
        #expect(configured.host == "::")
    }

    @Test(arguments: [
        ("PUSH_HTTP_PORT", "http", "invalid PUSH_HTTP_PORT: 'http' is not a port number (0-65535)"),
        ("PUSH_HTTP_PORT", "70000", "invalid PUSH_HTTP_PORT: '70000' is not a port number (0-65535)"),
        ("PUSH_HTTP_HOST", "localhost", "invalid PUSH_HTTP_HOST: 'localhost' is not a numeric IPv4 or IPv6 address"),
    ])
    func namesTheVariableOfABadSetting(variable: String, value: String, message: String) {
        let error = #expect(throws: InvalidSetting.self) {
            try StatusServerConfiguration.fromEnvironment([variable: value])
        }
        #expect(error?.description == message)
    }

    @Test(arguments: [
        ("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", StatusRequest(method: "GET", path: "/metrics")),
        ("HEAD /readyz?x=1 HTTP/1.0\r\n\r\n", StatusRequest(method: "HEAD", path: "/readyz")),
        ("GET /healthz HTTP/1.1\n\n", StatusRequest(method: "GET", path: "/healthz")),
    ])
    func parsesRequestLines(head: String, expected: StatusRequest) throws {
        #expect(try StatusRequest.parse(Array(head.utf8)) == expected)
    }

    @Test(arguments: ["GET /metrics HTTP/1.1\r\nHost: x\r\n", "GET /metrics HTTP/1.1", ""])
    func waitsForTheRestOfAnIncompleteHead(head: String) {
        #expect(throws: StatusRequest.ParseError.incomplete) { try StatusRequest.parse(Array(head.utf8)) }
    }

    @Test(arguments: [
        "GET\r\n\r\n", "GET /metrics\r\n\r\n", "get /metrics HTTP/1.1\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n",
        "GET /metrics SPDY/3\r\n\r\n", "GET  /metrics HTTP/1.1\r\n\r\n",
    ])
    func rejectsMalformedRequestLines(head: String) {
        #expect(throws: StatusRequest.ParseError.malformed) { try StatusRequest.parse(Array(head.utf8)) }
    }
}
