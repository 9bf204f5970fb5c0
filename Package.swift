// swift-tools-version: 6.2
import PackageDescription

/// Linux only: the C libraries come from Debian's packages, and the code imports Glibc; nothing is built or tested
/// on Darwin, so no Apple platform is declared.
///
/// Every Swift target is built in Swift 6 language mode with warnings treated as errors, writes `any` before every
/// existential type (`ExistentialAny`), imports each module whose members a file uses (`MemberImportVisibility`), and
/// imports internally unless a declaration's access needs `public import` or `package import`
/// (`InternalImportsByDefault`).
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error), .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"), .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "push-worker",
    products: [
        .executable(name: "push-worker", targets: ["push-worker"])
    ],
    targets: [
        // C libraries from Debian packages, fenced into system-library targets with typed shims.
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // nghttp2's sessions, OpenSSL's TLS and Linux's epoll, for the transport on nghttp2.
        .systemLibrary(
            name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev", "libssl-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),

        .target(
            name: "HTTP2", dependencies: ["CCurl", "CNGHTTP2", "HTTPTypes", "Sockets", "Essentials"],
            swiftSettings: strict),
        // TCP addresses resolved with `getaddrinfo`, to connect to (HTTP2) or listen on (StatusServer).
        .target(name: "Sockets", swiftSettings: strict),
        // Pure: HTTP requests, responses, errors and the `HTTPTransport` protocol the provider clients send through.
        .target(name: "HTTPTypes", swiftSettings: strict),
        .target(name: "CLI", swiftSettings: strict),
        // Services, the group that runs them and shuts them down in reverse order, signals as an async sequence.
        .target(name: "Lifecycle", dependencies: ["Essentials"], swiftSettings: strict),
        .target(name: "PushCore", dependencies: ["Essentials"], swiftSettings: strict),
        // The device registry and the client settings as tables on every pod, behind the `DeviceStore` port: in
        // memory (pure) or in an LMDB file (the one part that imports `CLMDB`).
        .target(name: "DeviceRegistry", dependencies: ["PushCore", "CLMDB", "Essentials"], swiftSettings: strict),
        // Pure: the ingress's request handling (routes, keys, client allowlist, validation, IMKIT's answers).
        .target(name: "Ingress", dependencies: ["PushCore", "Essentials"], swiftSettings: strict),
        // Pure: one of each building block (JSON writer, base64url, RFC 3339, durations, clock, limiter, backoff,
        // SHA-256).
        // SHA-256's block compression with the x86 SHA extensions, for Essentials' SHA256 where the CPU has them.
        .target(name: "CSHA256Extensions"),
        .target(name: "Essentials", dependencies: ["CSHA256Extensions"], swiftSettings: strict),
        .target(name: "Kafka", dependencies: ["CRdKafka", "KafkaTypes", "Essentials"], swiftSettings: strict),
        // Pure: Kafka's value types shared by the librdkafka wrapper and the pipeline (partitions, watermarks).
        .target(name: "KafkaTypes", swiftSettings: strict),
        .target(name: "Signing", dependencies: ["COpenSSL", "Essentials"], swiftSettings: strict),
        .target(
            name: "Providers", dependencies: ["HTTPTypes", "PushCore", "Signing", "Essentials"], swiftSettings: strict),
        // Pure: the pipeline (consume → plan → send → receipts/retry/DLQ → commit) behind its ports, with the
        // invalid-token table. Imports no module that wraps C.
        .target(name: "PushPipeline", dependencies: ["PushCore", "KafkaTypes", "Essentials"], swiftSettings: strict),
        // Pure: the push metrics and the observer that turns the pipeline's events into metrics and log lines.
        .target(
            name: "PipelineMetrics",
            dependencies: ["PushPipeline", "PushCore", "Observability", "KafkaTypes", "Essentials"],
            swiftSettings: strict),
        // Pure: environment variables and files turned into the settings of every command, behind the
        // `FileReading` port, with the file reloader.
        .target(
            name: "Configuration",
            dependencies: [
                "CLI", "PushCore", "PushPipeline", "Kafka", "HTTP2", "HTTPTypes", "Providers", "Observability",
                "StatusServer", "Ingress", "Essentials",
            ],
            swiftSettings: strict),
        // The adapters behind the pipeline's ports, built and shut down as one scope: the Kafka record source and
        // sink, the provider sender with the apps' clients, the registry and token followers, the exit codes.
        .target(
            name: "Adapters",
            dependencies: [
                "Configuration", "CLI", "PushCore", "PushPipeline", "PipelineMetrics", "Kafka", "KafkaTypes", "HTTP2",
                "HTTPTypes", "Providers", "Observability", "TopicWindow", "Essentials", "Lifecycle", "DeviceRegistry",
            ],
            swiftSettings: strict),
        // `push-worker ingress`: the HTTP server around `Ingress`'s request handling, its Kafka producer, keys
        // reloading and readiness.
        .target(
            name: "IngressServer",
            dependencies: [
                "Ingress", "Configuration", "Adapters", "CLI", "PushCore", "Kafka", "Observability", "StatusServer",
                "Lifecycle", "Essentials",
            ],
            swiftSettings: strict),
        // `push-worker run`: the pipeline, its adapters, status server, watchdog and followers wired into one
        // service group.
        .target(
            name: "Worker",
            dependencies: [
                "Configuration", "Adapters", "CLI", "PushCore", "PushPipeline", "PipelineMetrics", "Kafka",
                "KafkaTypes", "HTTP2", "HTTPTypes", "Providers", "Observability", "StatusServer", "Essentials",
                "Lifecycle", "DeviceRegistry",
            ],
            swiftSettings: strict
        ),
        // `push-worker replay`: a window of a topic sent again through the pipeline beside the live group (its
        // planner, sink, pacing, record source, summary and service).
        .target(
            name: "Replay",
            dependencies: [
                "Adapters", "Configuration", "PushPipeline", "PushCore", "Kafka", "KafkaTypes", "TopicWindow",
                "Providers", "DeviceRegistry", "Observability", "Lifecycle", "CLI", "Essentials",
            ],
            swiftSettings: strict),
        .target(name: "Observability", dependencies: ["Essentials"], swiftSettings: strict),
        // `/metrics`, `/healthz` and `/readyz` on libmicrohttpd.
        .target(
            name: "StatusServer", dependencies: ["Observability", "Sockets", "Essentials", "CMicroHTTPD"],
            swiftSettings: strict),
        // Pure: receipt statistics (streaming aggregation, latency sketch) and their table/JSON/CSV/HTML forms.
        .target(name: "ReceiptAnalytics", dependencies: ["PushCore", "Essentials"], swiftSettings: strict),
        // Reading a window [from, to) of a topic by explicit assignment, for the tools (receipts, replay).
        .target(
            name: "TopicWindow", dependencies: ["Kafka", "KafkaTypes", "PushCore", "Essentials"], swiftSettings: strict),
        // jemalloc as the process's allocator, with its options (a C global it reads when it starts).
        .target(name: "MallocConfiguration", linkerSettings: [.linkedLibrary("jemalloc")]),
        .executableTarget(
            name: "push-worker",
            dependencies: [
                "CLI", "PushCore", "Kafka", "Configuration", "Adapters", "IngressServer", "Worker", "Replay",
                "Observability", "ReceiptAnalytics", "TopicWindow", "Essentials", "Lifecycle", "MallocConfiguration",
                "DeviceRegistry",
            ],
            swiftSettings: strict
        ),

        // The support of both layers: fakes of the pipeline's ports, the test clock, fixtures, test keys, the
        // repository's files and a seeded random generator. Nothing here starts a process or opens a socket.
        .target(
            name: "TestSupport",
            dependencies: [
                "PushPipeline", "PushCore", "KafkaTypes", "Essentials", "COpenSSL", "HTTPTypes", "Configuration",
                "Observability",
            ],
            path: "Tests/TestSupport", swiftSettings: strict),
    ] + unitTests + (integration ? integrationTests : [])
)

/// The unit layer, what `swift test` runs: pure logic and in-process parts, no child process, no socket, no file
/// outside a temporary folder, no real sleep. A `…UnitTests` target holds the unit tests of a module whose
/// `…Tests` target is integration.
var unitTests: [Target] {
    [
        .testTarget(name: "CLITests", dependencies: ["CLI"], swiftSettings: strict),
        .testTarget(
            name: "DeviceRegistryTests",
            dependencies: ["DeviceRegistry", "PushCore", "PushPipeline", "Essentials", "TestSupport"],
            swiftSettings: strict),
        .testTarget(name: "LifecycleTests", dependencies: ["Lifecycle"], swiftSettings: strict),
        .testTarget(name: "EssentialsTests", dependencies: ["Essentials", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "PushCoreTests", dependencies: ["PushCore", "TestSupport", "Essentials"],
            exclude: ["Goldens", "Validators"],
            swiftSettings: strict),
        .testTarget(name: "SigningTests", dependencies: ["Signing", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ObservabilityTests", dependencies: ["Observability"], swiftSettings: strict),
        .testTarget(
            name: "PushPipelineTests",
            dependencies: ["PushPipeline", "PushCore", "KafkaTypes", "Observability", "TestSupport", "Essentials"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PipelineMetricsTests",
            dependencies: [
                "PipelineMetrics", "PushPipeline", "PushCore", "Observability", "TestSupport", "Essentials",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ReplayTests",
            dependencies: [
                "Replay", "Adapters", "Configuration", "PushPipeline", "PushCore", "KafkaTypes", "TestSupport",
            ],
            swiftSettings: strict),
        .testTarget(name: "IngressTests", dependencies: ["Ingress", "PushCore"], swiftSettings: strict),
        .testTarget(name: "HTTPTypesTests", dependencies: ["HTTPTypes"], swiftSettings: strict),
        .testTarget(name: "SocketsTests", dependencies: ["Sockets"], swiftSettings: strict),
        .testTarget(name: "KafkaTypesTests", dependencies: ["KafkaTypes"], swiftSettings: strict),
        .testTarget(
            name: "ReceiptAnalyticsTests", dependencies: ["ReceiptAnalytics", "PushCore", "TestSupport", "Essentials"],
            swiftSettings: strict),
        .testTarget(
            name: "TopicWindowTests", dependencies: ["TopicWindow", "Kafka", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "KafkaUnitTests", dependencies: ["Kafka", "KafkaTypes", "CRdKafka"], swiftSettings: strict),
        .testTarget(name: "HTTP2UnitTests", dependencies: ["HTTP2", "HTTPTypes"], swiftSettings: strict),
        .testTarget(name: "StatusServerUnitTests", dependencies: ["StatusServer"], swiftSettings: strict),
        .testTarget(
            name: "ProvidersUnitTests",
            dependencies: ["Providers", "Signing", "HTTP2", "HTTPTypes", "TestSupport", "Essentials"],
            swiftSettings: strict
        ),
        .testTarget(name: "DocumentationTests", dependencies: ["TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ConfigurationTests",
            dependencies: [
                "Configuration", "PushPipeline", "Kafka", "PushCore", "Providers", "Observability", "HTTP2",
                "HTTPTypes", "TestSupport", "Essentials",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AdaptersTests",
            dependencies: [
                "Adapters", "Configuration", "PushPipeline", "PipelineMetrics", "Kafka", "KafkaTypes", "PushCore",
                "Providers", "Observability", "HTTP2", "HTTPTypes", "TestSupport", "Essentials", "Lifecycle",
                "DeviceRegistry",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WorkerUnitTests",
            dependencies: [
                "Worker", "Adapters", "Configuration", "PushPipeline", "PipelineMetrics", "Kafka", "KafkaTypes",
                "PushCore", "Providers", "Observability", "HTTP2", "HTTPTypes", "TestSupport", "Essentials",
                "Lifecycle",
            ],
            swiftSettings: strict
        ),
    ]
}

/// Whether the integration layer is part of the package: `PUSH_WORKER_INTEGRATION=1`, which
/// `deploy/local/test.sh` sets (SwiftPM reads the manifest again when the variable changes).
var integration: Bool { Context.environment["PUSH_WORKER_INTEGRATION"] == "1" }

/// The integration layer: the dev broker over TCP, the push simulator over HTTP/2, the built `push-worker`, the
/// Python validators of `.venv`, Chromium, chdb, promtool and kubectl, real signals and real time. A
/// `…IntegrationTests` target holds the integration tests of a module whose `…Tests` target is unit.
var integrationTests: [Target] {
    [
        // Child processes read line by line, the dev broker and the push simulator (Python, Tests/PushSimulator)
        // as children, and the Python tools of `.venv`.
        .target(
            name: "IntegrationSupport", dependencies: ["TestSupport", "HTTP2", "HTTPTypes"],
            path: "Tests/IntegrationSupport", swiftSettings: strict),
        .testTarget(
            name: "LifecycleIntegrationTests", dependencies: ["Lifecycle"], swiftSettings: strict),
        .testTarget(name: "EssentialsIntegrationTests", dependencies: ["Essentials"], swiftSettings: strict),
        .testTarget(
            name: "PushCoreIntegrationTests",
            dependencies: ["PushCore", "TestSupport", "IntegrationSupport", "Essentials"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SigningIntegrationTests", dependencies: ["Signing", "TestSupport", "IntegrationSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "KafkaTests", dependencies: ["Kafka", "KafkaTypes", "TestSupport", "IntegrationSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "HTTP2Tests", dependencies: ["HTTP2", "HTTPTypes", "TestSupport", "IntegrationSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ProvidersTests",
            dependencies: [
                "Providers", "Signing", "HTTP2", "HTTPTypes", "TestSupport", "IntegrationSupport", "Essentials",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WorkerTests",
            dependencies: [
                "Worker", "Adapters", "Configuration", "IngressServer", "PushPipeline", "PipelineMetrics", "Kafka",
                "KafkaTypes", "PushCore", "Providers", "Observability", "HTTP2", "HTTPTypes", "TestSupport",
                "IntegrationSupport", "Essentials", "Lifecycle",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StatusServerTests", dependencies: ["StatusServer", "Observability", "IntegrationSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ReceiptAnalyticsIntegrationTests",
            dependencies: ["ReceiptAnalytics", "PushCore", "TestSupport", "IntegrationSupport", "Kafka", "Essentials"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TopicWindowIntegrationTests",
            dependencies: ["TopicWindow", "Kafka", "TestSupport", "IntegrationSupport"], swiftSettings: strict),
        // `deploy/local/bench_registry.py`'s lookup figures: a device store's lookup beside planning one send.
        .executableTarget(
            name: "RegistryBenchmark", dependencies: ["DeviceRegistry", "PushCore", "PushPipeline"],
            path: "Tests/RegistryBenchmark", swiftSettings: strict),
        // What a group of sends costs the HTTP/2 transport, `send` per request or one `sendAll`
        // (`deploy/local/bench_send_all.py`).
        .executableTarget(
            name: "TransportBenchmark", dependencies: ["HTTP2", "HTTPTypes", "Providers", "PushCore"],
            path: "Tests/TransportBenchmark",
            swiftSettings: strict),
        // What planning costs alone (docs/performance.md, Method): the planner stack over the benchmark's events.
        .executableTarget(
            name: "PlanningBenchmark", dependencies: ["PushCore", "PushPipeline"], path: "Tests/PlanningBenchmark",
            swiftSettings: strict),
        .testTarget(
            name: "DeploymentTests",
            dependencies: ["PushCore", "TestSupport", "IntegrationSupport"],
            exclude: [
                "check_manifests.py", "check_overlays.py", "check_rules.py", "check_image_libraries.py",
                "check_custom_resources.py", "check_secured_overlays.py", "check_dashboard.py", "check_runbook.py",
                "check_ingress_manifests.py",
            ],
            swiftSettings: strict
        ),
    ]
}
