/// What this binary is: its version (`push-worker --version`) and `push_worker_build_info`.
public enum BuildInfo {
    /// The version the binary was built as: `BuildVersion.swift`, which the image build rewrites from its
    /// `VERSION` argument; `0.0.0-dev` in a checkout.
    public static let version = buildVersion

    /// Registers `push_worker_build_info{version,librdkafka,libcurl,libmicrohttpd}` at 1: the worker's version and
    /// the versions of the C libraries it runs with (read from the libraries themselves at start).
    public static func register(
        in registry: MetricsRegistry, librdkafka: String, libcurl: String, libmicrohttpd: String
    ) {
        registry.gauge(
            "push_worker_build_info", help: "The worker's version and the C libraries it runs with; always 1.",
            labels: ["version": version, "librdkafka": librdkafka, "libcurl": libcurl, "libmicrohttpd": libmicrohttpd]
        ).set(1)
    }
}
