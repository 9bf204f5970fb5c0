import Synchronization

/// The process's metrics, shaped like swift-metrics: counters, gauges and histograms named once with their help
/// text and labels, rendered in the Prometheus text format for `/metrics`.
///
/// Asking for a metric returns a handle; asking again with the same name and label values returns the same handle.
/// Keep handles for hot paths: updating one is an atomic operation (a short lock for histograms), while looking one
/// up takes the registry's lock. Metric and label names are fixed by the code, so a wrong one is a programming error
/// and stops the process with a message naming it.
public final class MetricsRegistry: Sendable {
    private let families = Mutex<[String: MetricFamily]>([:])
    private let collectors = Mutex<[@Sendable () -> Void]>([])

    public init() {}

    /// Runs `collect` before every rendering, to set metrics sampled only when scraped (e.g. process memory).
    public func addCollector(_ collect: @escaping @Sendable () -> Void) {
        collectors.withLock { $0.append(collect) }
    }

    /// The counter `name` with these label values, created at zero on first use.
    public func counter(_ name: String, help: String, labels: KeyValuePairs<String, String> = [:]) -> Counter {
        guard case .counter(let counter) = metric(name, help: help, kind: .counter, labels: labels) else {
            preconditionFailure("metric \(name) is not a counter")
        }
        return counter
    }

    /// The counter `name` with these label values, set from a total the process samples (CPU time, commits counted
    /// by a library), created at zero on first use.
    public func sampledCounter(_ name: String, help: String, labels: KeyValuePairs<String, String> = [:])
        -> SampledCounter
    {
        guard case .sampledCounter(let counter) = metric(name, help: help, kind: .sampledCounter, labels: labels)
        else {
            preconditionFailure("metric \(name) is not a sampled counter")
        }
        return counter
    }

    /// Removes the series of `name` with these label values (a partition no longer owned), if there is one.
    public func remove(_ name: String, labels: KeyValuePairs<String, String>) {
        families.withLock { families in
            guard var family = families[name] else { return }
            family.children[family.labelValues(from: labels)] = nil
            families[name] = family
        }
    }

    /// The gauge `name` with these label values, created at zero on first use.
    public func gauge(_ name: String, help: String, labels: KeyValuePairs<String, String> = [:]) -> Gauge {
        guard case .gauge(let gauge) = metric(name, help: help, kind: .gauge, labels: labels) else {
            preconditionFailure("metric \(name) is not a gauge")
        }
        return gauge
    }

    /// The histogram `name` with these label values and bucket upper bounds (strictly increasing, finite).
    public func histogram(
        _ name: String,
        help: String,
        buckets: [Double] = Histogram.defaultBuckets,
        labels: KeyValuePairs<String, String> = [:]
    ) -> Histogram {
        precondition(
            !buckets.isEmpty && buckets.allSatisfy(\.isFinite) && zip(buckets, buckets.dropFirst()).allSatisfy(<),
            "histogram \(name) needs finite, strictly increasing buckets, not \(buckets)")
        let kind = MetricFamily.Kind.histogram(upperBounds: buckets)
        guard case .histogram(let histogram) = metric(name, help: help, kind: kind, labels: labels) else {
            preconditionFailure("metric \(name) is not a histogram")
        }
        return histogram
    }

    /// The `Content-Type` of `prometheusText()`.
    public static let prometheusTextContentType = PrometheusText.contentType

    /// Every metric in the Prometheus text exposition format 0.0.4, families sorted by name.
    public func prometheusText() -> String {
        for collect in collectors.withLock({ $0 }) { collect() }
        let snapshot = families.withLock { Array($0.values) }
        var text = PrometheusText()
        for family in snapshot.sorted(by: { $0.name < $1.name }) {
            text.append(family)
        }
        return text.output
    }

    private func metric(
        _ name: String,
        help: String,
        kind: MetricFamily.Kind,
        labels: KeyValuePairs<String, String>
    ) -> MetricFamily.Metric {
        families.withLock { families in
            // Names are checked once, when their family is registered: lookups happen for every event.
            var family =
                families[name] ?? Self.newFamily(name, help: help, kind: kind, labelNames: labels.map(\.key))
            precondition(family.kind == kind, "metric \(name) was registered as another kind or with other buckets")
            let values = family.labelValues(from: labels)
            if let existing = family.children[values] { return existing }
            let created = kind.makeMetric()
            family.children[values] = created
            families[name] = family
            return created
        }
    }

    private static func newFamily(_ name: String, help: String, kind: MetricFamily.Kind, labelNames: [String])
        -> MetricFamily
    {
        precondition(MetricName.isValidMetricName(name), "invalid metric name '\(name)'")
        for label in labelNames {
            precondition(
                MetricName.isValidLabelName(label) && !(kind.isHistogram && label == "le"),
                "invalid label name '\(label)' of metric \(name)")
        }
        return MetricFamily(name: name, help: help, kind: kind, labelNames: labelNames.sorted())
    }
}

/// All metrics of one name: its help, kind, label names (sorted) and one metric per combination of label values.
struct MetricFamily: Sendable {
    enum Kind: Sendable, Equatable {
        case counter
        /// A counter whose total is sampled rather than incremented; rendered as a `counter`.
        case sampledCounter
        case gauge
        case histogram(upperBounds: [Double])

        var isHistogram: Bool {
            if case .histogram = self { true } else { false }
        }

        var prometheusType: String {
            switch self {
            case .counter, .sampledCounter: "counter"
            case .gauge: "gauge"
            case .histogram: "histogram"
            }
        }

        func makeMetric() -> Metric {
            switch self {
            case .counter: .counter(Counter())
            case .sampledCounter: .sampledCounter(SampledCounter())
            case .gauge: .gauge(Gauge())
            case .histogram(let upperBounds): .histogram(Histogram(upperBounds: upperBounds))
            }
        }
    }

    enum Metric: Sendable {
        case counter(Counter)
        case sampledCounter(SampledCounter)
        case gauge(Gauge)
        case histogram(Histogram)
    }

    let name: String
    let help: String
    let kind: Kind
    let labelNames: [String]
    var children: [[String]: Metric] = [:]

    /// The values of `labels` in the order of `labelNames`; other label names are a programming error.
    func labelValues(from labels: KeyValuePairs<String, String>) -> [String] {
        precondition(
            labels.map(\.key).sorted() == labelNames,
            "metric \(name) has labels \(labelNames), not \(labels.map(\.key).sorted())")
        return labelNames.map { name in labels.first { $0.key == name }?.value ?? "" }
    }
}

/// The naming rules of the Prometheus data model.
enum MetricName {
    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`
    static func isValidMetricName(_ name: String) -> Bool {
        isValid(name, extra: ":")
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, not starting with the reserved `__`.
    static func isValidLabelName(_ name: String) -> Bool {
        isValid(name, extra: nil) && !name.hasPrefix("__")
    }

    private static func isValid(_ name: String, extra: Character?) -> Bool {
        guard let first = name.first, first.isASCIILetter || first == "_" || first == extra else { return false }
        return name.allSatisfy { $0.isASCIILetter || $0 == "_" || $0 == extra || ("0"..."9").contains($0) }
    }
}

extension Character {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
