import Testing

@testable import Observability

@Suite("Metrics registry and Prometheus text")
struct MetricsTests {
    @Test func rendersEveryMetricKindInPrometheusTextFormat() {
        let registry = MetricsRegistry()
        registry.counter("push_sends_total", help: "Device sends.", labels: ["provider": "fcm", "status": "delivered"])
            .increment(by: 2)
        registry.counter(
            "push_sends_total", help: "Device sends.", labels: ["status": "delivered", "provider": "apns"]
        )
        .increment()
        registry.gauge("push_inflight", help: "In flight.").set(7)
        registry.gauge("kafka_consumer_lag", help: "Lag.", labels: ["partition": "0"]).set(-0.25)
        let latency = registry.histogram(
            "push_send_latency_seconds", help: "Latency.", buckets: [0.01, 0.1, 1], labels: ["provider": "apns"])
        for value in [0.005, 0.01, 0.05, 2.0] { latency.observe(value) }
        latency.observe(.milliseconds(500))

        #expect(
            registry.prometheusText() == """
                # HELP kafka_consumer_lag Lag.
                # TYPE kafka_consumer_lag gauge
                kafka_consumer_lag{partition="0"} -0.25
                # HELP push_inflight In flight.
                # TYPE push_inflight gauge
                push_inflight 7
                # HELP push_send_latency_seconds Latency.
                # TYPE push_send_latency_seconds histogram
                push_send_latency_seconds_bucket{provider="apns",le="0.01"} 2
                push_send_latency_seconds_bucket{provider="apns",le="0.1"} 3
                push_send_latency_seconds_bucket{provider="apns",le="1"} 4
                push_send_latency_seconds_bucket{provider="apns",le="+Inf"} 5
                push_send_latency_seconds_sum{provider="apns"} 2.565
                push_send_latency_seconds_count{provider="apns"} 5
                # HELP push_sends_total Device sends.
                # TYPE push_sends_total counter
                push_sends_total{provider="apns",status="delivered"} 1
                push_sends_total{provider="fcm",status="delivered"} 2

                """)
    }

    @Test func escapesLabelValuesAndHelpText() {
        let registry = MetricsRegistry()
        registry.counter("odd_total", help: "Back\\slash and\nnewline \"kept\".", labels: ["v": "a\"b\\c\nd"])
            .increment()
        #expect(
            registry.prometheusText() == """
                # HELP odd_total Back\\\\slash and\\nnewline "kept".
                # TYPE odd_total counter
                odd_total{v="a\\"b\\\\c\\nd"} 1

                """)
    }

    @Test(arguments: [(1.0, "1"), (0.005, "0.005"), (2.5, "2.5"), (-3, "-3"), (.infinity, "+Inf"), (.nan, "NaN")])
    func formatsNumbersAsPrometheusDoes(value: Double, text: String) {
        #expect(PrometheusText.number(value) == text)
    }

    @Test func returnsTheSameHandleForTheSameNameAndLabels() {
        let registry = MetricsRegistry()
        let first = registry.counter("a_total", help: "A.", labels: ["x": "1"])
        let again = registry.counter("a_total", help: "A.", labels: ["x": "1"])
        let other = registry.counter("a_total", help: "A.", labels: ["x": "2"])
        #expect(first === again)
        #expect(first !== other)
    }

    @Test(arguments: ["push_sends_total", "ns:metric", "_x"])
    func acceptsValidMetricNames(name: String) {
        #expect(MetricName.isValidMetricName(name))
    }

    @Test(arguments: ["", "1abc", "with-dash", "with space"])
    func rejectsInvalidMetricNames(name: String) {
        #expect(!MetricName.isValidMetricName(name))
        #expect(!MetricName.isValidLabelName(name))
    }

    @Test func reservesDoubleUnderscoreLabelNamesAndColons() {
        #expect(!MetricName.isValidLabelName("__name__"))
        #expect(!MetricName.isValidLabelName("a:b"))
        #expect(MetricName.isValidLabelName("provider"))
    }
}

@Suite("Process metrics")
struct ProcessMetricsTests {
    @Test func samplesResidentMemoryAndCPUTimeAtEveryRendering() throws {
        let registry = MetricsRegistry()
        ProcessMetrics.register(in: registry)
        let text = registry.prometheusText()
        let resident = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("process_resident_memory_bytes ") })
        let bytes = try #require(Double(resident.split(separator: " ")[1]))
        #expect(bytes > 1_000_000)
        #expect(text.contains("# TYPE process_cpu_seconds_total counter\n"))
        #expect(text.contains("# TYPE process_start_time_seconds gauge\n"))
    }

    @Test func runsCollectorsBeforeEachRendering() {
        let registry = MetricsRegistry()
        let scrapes = registry.counter("scrapes_total", help: "Scrapes.")
        registry.addCollector { scrapes.increment() }
        _ = registry.prometheusText()
        #expect(registry.prometheusText().contains("scrapes_total 2\n"))
    }
}

@Suite("Sampled counters, removal and probes")
struct SampledCounterAndHealthTests {
    @Test func sampledCounterRendersAsACounterAndNeverGoesDown() {
        let registry = MetricsRegistry()
        let cpu = registry.sampledCounter("cpu_seconds_total", help: "CPU.")
        cpu.advance(to: 2.5)
        cpu.advance(to: 1)
        #expect(cpu.value == 2.5)
        #expect(
            registry.prometheusText()
                == "# HELP cpu_seconds_total CPU.\n# TYPE cpu_seconds_total counter\ncpu_seconds_total 2.5\n")
    }

    @Test func removingASeriesKeepsTheOthersOfItsFamily() {
        let registry = MetricsRegistry()
        registry.gauge("lag", help: "Lag.", labels: ["partition": "0"]).set(1)
        registry.gauge("lag", help: "Lag.", labels: ["partition": "1"]).set(2)
        registry.remove("lag", labels: ["partition": "0"])
        registry.remove("absent", labels: ["partition": "0"])
        #expect(registry.prometheusText() == "# HELP lag Lag.\n# TYPE lag gauge\nlag{partition=\"1\"} 2\n")
    }

    @Test func healthReportPassesOnlyWhenEveryCheckPasses() {
        let checks = HealthChecks()
        #expect(checks.evaluate().passing)
        checks.set("b", passing: true, detail: "fine")
        checks.register("a") { .fail("down") }
        let report = checks.evaluate()
        #expect(!report.passing)
        #expect(report.failing == ["a"])
        #expect(
            report.json
                == #"{"checks":{"a":{"detail":"down","passing":false},"b":{"detail":"fine","passing":true}},"status":"fail"}"#
                + "\n")
    }

    @Test func aWarningCheckLetsTheReportPassWithTheWarnStatusUntilACheckFails() {
        let checks = HealthChecks()
        checks.set("b", passing: true)
        checks.register("w") { .warn("degraded") }
        #expect(checks.evaluate().passing)
        #expect(checks.evaluate().status == .warn)
        #expect(checks.evaluate().failing.isEmpty)
        checks.register("a") { .fail("down") }
        #expect(checks.evaluate().status == .fail)
        #expect(checks.evaluate().failing == ["a"])
    }
}
