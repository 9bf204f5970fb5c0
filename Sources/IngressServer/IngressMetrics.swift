import Ingress
import Observability

/// The ingress's series: `push_ingress_requests_total{route,status}` and the Kafka acknowledgement latency
/// `push_ingress_kafka_seconds`, all created at start so that the first scrape holds them at 0.
struct IngressMetrics: Sendable {
    /// The statuses the ingress answers with.
    static let statuses = [200, 400, 401, 403, 404, 405, 413, 503, 504]
    /// The route label of a path that is no route.
    static let otherRoute = "other"

    private let requests: [String: [Int: Counter]]
    private let unexpected: Counter
    /// From queueing a record to its delivery report, acknowledged or not.
    let kafkaLatency: Histogram

    init(registry: MetricsRegistry) {
        var requests: [String: [Int: Counter]] = [:]
        for route in IngressRoute.allCases.map(\.path) + [Self.otherRoute] {
            for status in Self.statuses {
                requests[route, default: [:]][status] = registry.counter(
                    "push_ingress_requests_total", help: "Ingress requests answered, by route and status.",
                    labels: ["route": route, "status": String(status)])
            }
        }
        self.requests = requests
        unexpected = registry.counter(
            "push_ingress_requests_total", help: "Ingress requests answered, by route and status.",
            labels: ["route": Self.otherRoute, "status": "other"])
        kafkaLatency = registry.histogram(
            "push_ingress_kafka_seconds", help: "Time from queueing an ingress record to Kafka's acknowledgement.",
            buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5])
    }

    /// Counts one answer with `status` to a request for `path`.
    func answered(path: String, status: Int) {
        let route = IngressRoute(rawValue: path)?.path ?? Self.otherRoute
        (requests[route]?[status] ?? unexpected).increment()
    }
}
