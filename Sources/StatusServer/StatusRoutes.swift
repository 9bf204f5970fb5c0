import Observability

/// What the status endpoints answer: `/metrics` (Prometheus text), `/healthz` (liveness) and `/readyz`
/// (readiness), GET or HEAD only. The probes answer JSON naming every check, with 200 when all pass and 503 if not.
struct StatusRoutes: Sendable {
    let registry: MetricsRegistry
    let liveness: HealthChecks
    let readiness: HealthChecks

    /// The response to `method` on `path` (the request target, query string included or not).
    func respond(method: String, path target: String) -> StatusResponse {
        guard method == "GET" || method == "HEAD" else {
            return StatusResponse(status: 405, extraHeaders: ["Allow": "GET, HEAD"], body: "method not allowed\n")
        }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        switch path {
        case "/metrics":
            return StatusResponse(
                status: 200, contentType: MetricsRegistry.prometheusTextContentType, body: registry.prometheusText())
        case "/healthz":
            return Self.probe(liveness.evaluate())
        case "/readyz":
            return Self.probe(readiness.evaluate())
        default:
            return StatusResponse(status: 404, body: "not found\n")
        }
    }

    private static func probe(_ report: HealthReport) -> StatusResponse {
        StatusResponse(status: report.passing ? 200 : 503, contentType: "application/json", body: report.json)
    }
}

extension StatusRoutes: HTTPRequestHandler {
    /// The status endpoints take no body.
    var maximumBodyBytes: Int { 0 }

    /// Answers at once; the connection is closed after the answer (probes and scrapes open a new one each time).
    func handle(_ request: HTTPServerRequest, respond: @escaping @Sendable (HTTPServerResponse) -> Void) {
        let response = self.respond(method: request.method, path: request.path)
        respond(
            HTTPServerResponse(
                status: response.status, contentType: response.contentType,
                headers: response.extraHeaders.merging(["Connection": "close"]) { own, _ in own },
                body: Array(response.body.utf8)))
    }
}
