// swift-tools-version: 6.2
import PackageDescription

/// Every Swift target is built in Swift 6 language mode with warnings treated as errors.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "push-worker",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "push-worker", targets: ["push-worker"])
    ],
    targets: [
        // C libraries from Debian packages, fenced into system-library targets with typed shims.
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),

        .target(name: "HTTP2", dependencies: ["CCurl"], swiftSettings: strict),
        .target(name: "CLI", swiftSettings: strict),
        // Services, the group that runs them and shuts them down in reverse order, signals as an async sequence.
        .target(name: "Lifecycle", swiftSettings: strict),
        .target(name: "PushCore", swiftSettings: strict),
        .target(name: "Kafka", dependencies: ["CRdKafka"], swiftSettings: strict),
        .target(name: "KafkaTesting", dependencies: ["ChildProcessTesting"], swiftSettings: strict),
        // Reading a test's child processes (dev broker, push simulator) line by line.
        .target(name: "ChildProcessTesting", swiftSettings: strict),
        .target(name: "Signing", dependencies: ["COpenSSL"], swiftSettings: strict),
        .target(name: "Providers", dependencies: ["HTTP2", "Signing"], swiftSettings: strict),
        .target(
            name: "Worker",
            dependencies: [
                "CLI", "PushCore", "Kafka", "HTTP2", "Providers", "Observability", "TopicWindow", "Lifecycle",
            ],
            swiftSettings: strict
        ),
        .target(name: "Observability", dependencies: ["CMicroHTTPD"], swiftSettings: strict),
        // Pure: receipt statistics (streaming aggregation, latency sketch) and their table/JSON/CSV/HTML forms.
        .target(name: "ReceiptAnalytics", dependencies: ["PushCore"], swiftSettings: strict),
        // Reading a window [from, to) of a topic by explicit assignment, for the tools (receipts, replay).
        .target(name: "TopicWindow", dependencies: ["Kafka", "PushCore"], swiftSettings: strict),
        .executableTarget(
            name: "push-worker",
            dependencies: [
                "CLI", "PushCore", "Kafka", "Worker", "Observability", "ReceiptAnalytics", "TopicWindow", "Lifecycle",
            ],
            swiftSettings: strict
        ),

        .testTarget(name: "CLITests", dependencies: ["CLI"], swiftSettings: strict),
        .testTarget(name: "LifecycleTests", dependencies: ["Lifecycle"], swiftSettings: strict),
        .testTarget(
            name: "PushCoreTests",
            dependencies: ["PushCore", "ChildProcessTesting", "SeededRandomness"],
            exclude: ["Goldens", "Validators"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "KafkaTests", dependencies: ["Kafka", "KafkaTesting", "ChildProcessTesting"], swiftSettings: strict
        ),
        .testTarget(name: "SigningTests", dependencies: ["Signing", "ChildProcessTesting"], swiftSettings: strict),
        .testTarget(
            name: "ProvidersTests",
            dependencies: ["Providers", "Signing", "HTTP2", "PushSimulatorSupport", "SeededRandomness"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WorkerTests",
            dependencies: [
                "Worker", "Kafka", "PushCore", "Providers", "Observability", "PushSimulatorSupport", "KafkaTesting",
                "SeededRandomness",
                "ChildProcessTesting",
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "ObservabilityTests", dependencies: ["Observability"], swiftSettings: strict),
        .testTarget(
            name: "ReceiptAnalyticsTests",
            dependencies: [
                "ReceiptAnalytics", "PushCore", "SeededRandomness", "ChildProcessTesting", "KafkaTesting", "Kafka",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TopicWindowTests", dependencies: ["TopicWindow", "Kafka", "KafkaTesting"], swiftSettings: strict
        ),
        .testTarget(
            name: "DeploymentTests",
            dependencies: ["PushCore", "ChildProcessTesting"],
            exclude: ["check_manifests.py", "check_overlays.py", "check_rules.py", "check_image_libraries.py"],
            swiftSettings: strict
        ),
        // The push simulator (Python, Tests/PushSimulator) as a child process, for integration tests.
        // A seeded random number generator, so tests that draw random input reproduce.
        .target(name: "SeededRandomness", path: "Tests/SeededRandomness", swiftSettings: strict),
        .target(
            name: "PushSimulatorSupport",
            dependencies: ["HTTP2", "ChildProcessTesting"],
            path: "Tests/PushSimulatorSupport",
            swiftSettings: strict
        ),
        .testTarget(name: "HTTP2Tests", dependencies: ["HTTP2", "PushSimulatorSupport"], swiftSettings: strict),
    ]
)
