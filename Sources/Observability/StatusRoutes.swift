/// What the status endpoints answer: `/metrics`, `/healthz` and `/readyz`, GET or HEAD only.
struct StatusRoutes: Sendable {
    let registry: MetricsRegistry
    let readiness: Readiness

    func respond(to request: StatusRequest) -> StatusResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return StatusResponse(
                status: 405, reason: "Method Not Allowed", extraHeaders: [("Allow", "GET, HEAD")],
                body: "method not allowed\n")
        }
        var response = route(request.path)
        response.omitsBody = request.method == "HEAD"
        return response
    }

    private func route(_ path: String) -> StatusResponse {
        switch path {
        case "/metrics":
            return StatusResponse(
                status: 200, reason: "OK", contentType: PrometheusText.contentType, body: registry.prometheusText())
        case "/healthz":
            return StatusResponse(status: 200, reason: "OK", body: "ok\n")
        case "/readyz":
            let unmet = readiness.unmetConditions
            if unmet.isEmpty { return StatusResponse(status: 200, reason: "OK", body: "ready\n") }
            return StatusResponse(
                status: 503, reason: "Service Unavailable", body: "not ready: \(unmet.joined(separator: ", "))\n")
        default:
            return StatusResponse(status: 404, reason: "Not Found", body: "not found\n")
        }
    }

    /// The answer to a request that could not be read.
    static func failure(_ status: Int, _ reason: String) -> StatusResponse {
        StatusResponse(status: status, reason: reason, body: reason.lowercased() + "\n")
    }
}
