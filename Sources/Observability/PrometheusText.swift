/// Renders metric families in the Prometheus text exposition format, version 0.0.4.
struct PrometheusText {
    /// The `Content-Type` of the rendered text.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private(set) var output = ""

    /// Appends `# HELP`, `# TYPE` and one sample line per metric (three kinds of line per histogram),
    /// metrics sorted by their label values.
    mutating func append(_ family: MetricFamily) {
        output += "# HELP \(family.name) \(Self.escapeHelp(family.help))\n"
        output += "# TYPE \(family.name) \(family.kind.prometheusType)\n"
        for (values, metric) in family.children.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            let labels = Array(zip(family.labelNames, values))
            switch metric {
            case .counter(let counter):
                sample(family.name, labels, String(counter.value))
            case .sampledCounter(let counter):
                sample(family.name, labels, Self.number(counter.value))
            case .gauge(let gauge):
                sample(family.name, labels, Self.number(gauge.value))
            case .histogram(let histogram):
                let snapshot = histogram.snapshot()
                var cumulative: UInt64 = 0
                for (bound, count) in zip(histogram.upperBounds, snapshot.bucketCounts) {
                    cumulative &+= count
                    sample(family.name + "_bucket", labels + [("le", Self.number(bound))], String(cumulative))
                }
                sample(family.name + "_bucket", labels + [("le", "+Inf")], String(snapshot.count))
                sample(family.name + "_sum", labels, Self.number(snapshot.sum))
                sample(family.name + "_count", labels, String(snapshot.count))
            }
        }
    }

    private mutating func sample(_ name: String, _ labels: [(String, String)], _ value: String) {
        output += name
        if !labels.isEmpty {
            output += "{"
            output += labels.map { "\($0.0)=\"\(Self.escapeLabelValue($0.1))\"" }.joined(separator: ",")
            output += "}"
        }
        output += " \(value)\n"
    }

    /// A sample value or bucket bound: integers without a fraction, `+Inf`, `-Inf` and `NaN` spelled as Prometheus does.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Label values escape backslash, double quote and line feed.
    static func escapeLabelValue(_ text: String) -> String {
        escape(text, quotes: true)
    }

    /// Help text escapes backslash and line feed.
    static func escapeHelp(_ text: String) -> String {
        escape(text, quotes: false)
    }

    private static func escape(_ text: String, quotes: Bool) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\n" || (quotes && $0 == "\"") }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\"" where quotes: escaped += "\\\""
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
