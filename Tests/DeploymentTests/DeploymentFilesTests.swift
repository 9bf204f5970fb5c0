import Foundation
import IntegrationSupport
import PushCore
import TestSupport
import Testing

/// The deployment files checked offline: Kubernetes JSON schemas (kubernetes-validate), the project's own
/// requirements on the manifests and the KEDA / Prometheus Operator kinds (check_manifests.py), the rendered
/// overlays (check_overlays.py, `kubectl kustomize`), the custom resources against the vendored CRDs
/// (check_custom_resources.py), the secured overlays against the base (check_secured_overlays.py), the alerts
/// (check_rules.py, promtool), the dashboard (check_dashboard.py), the runbook (check_runbook.py), hadolint and the
/// runtime stage's libraries (check_image_libraries.py, `ldd`) for the Dockerfile. No cluster; a Docker engine only where
/// one exists. Serialized: every check runs a child process that blocks its thread until it ends, and side by side
/// they would hold every thread of the test run's pool.
@Suite("Deployment files", .serialized)
struct DeploymentFilesTests {
    static let manifests = Repository.path("deploy/kubernetes/base")
    static let checker = script("check_manifests.py")

    static func script(_ name: String) -> String {
        Repository.path("Tests/DeploymentTests/\(name)").path
    }
    /// The oldest Kubernetes minor release the manifests must work on.
    static let kubernetesVersion = "1.30.0"

    static func resourceFiles(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".yaml") && $0 != "kustomization.yaml" }.sorted()
            .map { directory.appending(path: $0).path }
    }

    @Test func manifestsValidateAgainstTheKubernetesSchemasStrictly() throws {
        let files = try Self.resourceFiles(in: Self.manifests)
        #expect(files.count >= 7)
        let result = try Repository.runTool("kubernetes-validate", ["--strict", "-k", Self.kubernetesVersion] + files)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func manifestsMeetTheWorkersRequirements() throws {
        let result = try Repository.runTool("python", [Self.checker, Self.manifests.path])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(
        .enabled(
            if: Tool.onPath("kubectl") != nil,
            "kubectl (with kustomize v5) not on PATH: Debian ships none recent enough; the overlays are not rendered"))
    func overlaysRenderAndValidateWithTheirDifferences() throws {
        let result = try Repository.runTool(
            "python",
            [
                Self.script("check_overlays.py"), Repository.path("deploy/kubernetes").path,
                Self.kubernetesVersion,
            ])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(
        .enabled(if: Tool.onPath("kubectl") != nil, "kubectl (with kustomize v5) not on PATH"),
        arguments: [
            (
                "            optional: true\n            defaultMode", "            defaultMode",
                "the push-worker-apns Secret volume is not optional"
            ),
            (
                "key: team-id\n                  optional: true", "key: team-id",
                "APNS_TEAM_ID is not an optional key of the push-worker-apns Secret"
            ),
        ])
    func overlaysCheckerRejectsAWorkerThatNeedsBothProviderSecrets(original: String, broken: String, complaint: String)
        throws
    {
        let copy = try copyOfDeployment(replacing: original, with: broken, in: "base/deployment.yaml")
        defer { try? FileManager.default.removeItem(at: copy) }
        let result = try Repository.runTool(
            "python", [Self.script("check_overlays.py"), copy.path, Self.kubernetesVersion])
        #expect(result.status != 0)
        #expect(result.output.contains("overlays/strimzi: " + complaint), "\(result.output)")
    }

    @Test func customResourcesValidateStrictlyAgainstTheVendoredCRDSchemasAndTheirCELRules() throws {
        let result = try Repository.runTool(
            "python", [Self.script("check_custom_resources.py"), Repository.path("deploy/kubernetes").path])
        #expect(result.status == 0, "\(result.output)")
        // The KafkaUser's three rules and the ScaledObject's one, on every object they apply to.
        let counts = try #require(result.output.firstMatch(of: /CEL: (\d+) rules .*, (\d+) evaluations/))
        #expect(Int(counts.1) ?? 0 >= 4, "\(result.output)")
        #expect(Int(counts.2) ?? 0 >= 4, "\(result.output)")
    }

    @Test func ingressManifestsValidateStrictlyAndMeetTheIngressRequirements() throws {
        let directory = Repository.path("deploy/kubernetes/ingress")
        let files = try Self.resourceFiles(in: directory).filter { !$0.hasSuffix("podmonitor.yaml") }
        #expect(files.count == 5)
        let schemas = try Repository.runTool("kubernetes-validate", ["--strict", "-k", Self.kubernetesVersion] + files)
        #expect(schemas.status == 0, "\(schemas.output)")
        let result = try Repository.runTool("python", [Self.script("check_ingress_manifests.py"), directory.path])
        #expect(result.status == 0, "\(result.output)")
    }

    /// A broken copy of deploy/kubernetes/ingress that check_ingress_manifests.py must refuse with `complaint`.
    @Test(arguments: [
        ("deployment.yaml", #"args: ["ingress"]"#, #"args: ["run"]"#, "does not run `push-worker ingress`"),
        ("service.yaml", "targetPort: http-ingress", "targetPort: http-status", "no port targets the ingress port"),
        ("horizontalpodautoscaler.yaml", "name: cpu", "name: memory", "does not scale on CPU"),
        ("networkpolicy.yaml", "port: 8080", "port: 8081", "port 8080 is not reachable"),
        (
            "deployment.yaml", "terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 10",
            "below the Kafka"
        ),
        ("deployment.yaml", "mountPath: /var/run/secrets/push-worker/ingress", "mountPath: /keys", "not in a mounted"),
    ])
    func ingressCheckerRejectsABrokenManifest(file: String, original: String, broken: String, complaint: String)
        throws
    {
        let copy = try copyOfDeployment(replacing: original, with: broken, in: "ingress/\(file)")
        defer { try? FileManager.default.removeItem(at: copy) }
        let result = try Repository.runTool(
            "python", [Self.script("check_ingress_manifests.py"), copy.appending(path: "ingress").path])
        #expect(result.status != 0)
        #expect(result.output.contains(complaint), "\(result.output)")
    }

    @Test func securedOverlaysCoverEveryTopicAndGrantExactlyTheACLsTheWorkerNeeds() throws {
        let result = try Repository.runTool(
            "python", [Self.script("check_secured_overlays.py"), Repository.path("deploy/kubernetes").path])
        #expect(result.status == 0, "\(result.output)")
    }

    /// A broken copy of deploy/kubernetes that `checker` must refuse with `complaint`.
    @Test(arguments: [
        (
            "check_custom_resources.py", "overlays/strimzi/kafkatopics.yaml", "  partitions: 12", "  partition: 12",
            "'partition' was unexpected"
        ),
        (
            "check_custom_resources.py", "overlays/strimzi/kafkausers.yaml", "operations: [Describe, Read]",
            "operations: [Describe, Reads]", "'Reads' is not one of"
        ),
        (
            "check_custom_resources.py", "overlays/sasl-scram/kustomization.yaml",
            "        value:\n          name: push-worker-kafka", "        value:\n          nam: push-worker-kafka",
            "'nam' was unexpected"
        ),
        (
            "check_custom_resources.py", "base/scaledobject.yaml", "minReplicaCount: 2", "minReplicaCount: 13",
            "ScaledObject push-worker: spec: minReplicaCount must be less than or equal to maxReplicaCount"
        ),
        (
            "check_custom_resources.py", "overlays/strimzi/kafkausers.yaml", "    type: scram-sha-512\n",
            "    type: scram-sha-512\n    validityDays: 30\n",
            "spec.authentication: 'validityDays' and 'renewalDays' can be configured only with 'type: tls'"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kafkausers.yaml",
            "      - resource: {type: group, name: push-worker, patternType: literal}\n        operations: [Describe, Read]\n",
            "", "lacks ['Describe', 'Read'] on group push-worker"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kafkausers.yaml",
            "name: push.receipts, patternType: literal}\n        operations: [Describe, Write]",
            "name: push.receipts, patternType: literal}\n        operations: [All]", "grants too much"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kafkatopics.yaml", "    cleanup.policy: compact\n",
            "    cleanup.policy: delete\n", "cleanup.policy must be compact"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kafkatopics.yaml", "  name: push.clients\n",
            "  name: push.settings\n", "the fleet uses"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kafkatopics.yaml",
            "  name: push.fanout\n  labels:\n    strimzi.io/cluster: kafka\nspec:\n  partitions: 12",
            "  name: push.fanout\n  labels:\n    strimzi.io/cluster: kafka\nspec:\n  partitions: 8",
            "must have one partition count"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kafkatopics.yaml",
            "  name: push.fanout\n  labels:\n    strimzi.io/cluster: kafka\nspec:\n  partitions: 12\n  replicas: 3\n"
                + "  config:\n    min.insync.replicas: 2\n    cleanup.policy: delete\n    retention.ms: 604800000",
            "  name: push.fanout\n  labels:\n    strimzi.io/cluster: kafka\nspec:\n  partitions: 12\n  replicas: 3\n"
                + "  config:\n    min.insync.replicas: 2\n    cleanup.policy: delete\n    retention.ms: 86400000",
            "push.fanout: retention.ms must be at least the input's"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kafkausers.yaml",
            "name: push.fanout, patternType: literal}\n        operations: [Describe, Read, Write]",
            "name: push.fanout, patternType: literal}\n        operations: [Describe, Read]",
            "lacks ['Write'] on topic push.fanout"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kafka-security.yaml", "value: kafka-kafka-bootstrap:9093",
            "value: kafka:9092", "bootstrap"
        ),
        (
            "check_secured_overlays.py", "overlays/sasl-scram/kustomization.yaml", "value: scram_sha512",
            "value: scram_sha256", "sasl"
        ),
        (
            "check_secured_overlays.py", "overlays/sasl-scram/kafka-security.yaml", "value: SASL_SSL",
            "value: SASL_PLAINTEXT", "SASL_SSL"
        ),
        (
            "check_secured_overlays.py", "overlays/sasl-scram/kustomization.yaml",
            "path: /spec/triggers/0/authenticationRef", "path: /spec/x", "authenticationRef"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kustomization.yaml",
            "path: /spec/triggers/1/authenticationRef", "path: /spec/x", "/spec/triggers/1/authenticationRef"
        ),
        (
            "check_secured_overlays.py", "overlays/strimzi/kafkausers.yaml",
            "name: push.devices, patternType: literal}\n        operations: [Describe, Read, Write]",
            "name: push.devices, patternType: literal}\n        operations: [Describe, Read]",
            "lacks ['Write'] on topic push.devices"
        ),
    ])
    func overlayCheckersRejectABrokenCopy(
        checker: String, file: String, original: String, broken: String, complaint: String
    ) throws {
        let copy = try copyOfDeployment(replacing: original, with: broken, in: file)
        defer { try? FileManager.default.removeItem(at: copy) }
        let result = try Repository.runTool("python", [Self.script(checker), copy.path])
        #expect(result.status != 0)
        #expect(result.output.contains(complaint), "\(result.output)")
    }

    @Test func dashboardFiltersEveryQueryByJobAndNamespaceAndHasTheOperatorsPanels() throws {
        let result = try Repository.runTool(
            "python", [Self.script("check_dashboard.py"), Repository.path("deploy/grafana/push-worker.json").path])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(arguments: [
        (
            #"rate(push_dlq_total{job=~\"$job\",namespace=~\"$namespace\"}[5m])"#, "rate(push_dlq_total[5m])",
            "not filtered"
        ),
        ("kube_pod_status_ready{", "kube_pod_status_readiness{", "no panel shows readiness"),
        (#""name": "namespace""#, #""name": "space""#, "no $namespace variable"),
    ])
    func dashboardCheckerRejectsAnUnfilteredQueryOrAMissingPanel(original: String, broken: String, complaint: String)
        throws
    {
        let path = "deploy/grafana/push-worker.json"
        let root = try brokenCopy(of: path, replacing: original, with: broken)
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try Repository.runTool(
            "python", [Self.script("check_dashboard.py"), root.appending(path: path).path])
        #expect(result.status != 0)
        #expect(result.output.contains(complaint), "\(result.output)")
    }

    @Test(arguments: [
        ("autoscaling.keda.sh/paused-replicas=0", "autoscaling.keda.sh/paused=0", "paused-replicas annotation"),
        (
            "(KEDA undoes a\n  scale-down", "(scale the worker to 0 and then\n  scale-down",
            "scaling the Deployment to 0"
        ),
        ("`push-worker replay --topic push.dlq", "`push-worker redrive --topic push.dlq", "push-worker redrive"),
        ("`deploy/grafana/push-worker.json`", "`deploy/grafana/worker.json`", "deploy/grafana/worker.json"),
        ("has `/bin/sh` but no\ncurl", "has no shell and no\ncurl", "says the image has no shell"),
    ])
    func runbookCheckerRejectsAWrongCommandPathOrClaim(original: String, broken: String, complaint: String) throws {
        let root = try brokenCopy(of: "deploy/RUNBOOK.md", replacing: original, with: broken)
        defer { try? FileManager.default.removeItem(at: root) }
        for path in ["Sources", "deploy/Dockerfile", "deploy/grafana", "deploy/kubernetes", "docs"] {
            try FileManager.default.createDirectory(
                at: root.appending(path: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: root.appending(path: path), withDestinationURL: Repository.path(path))
        }
        let result = try Repository.runTool("python", [Self.script("check_runbook.py"), root.path])
        #expect(result.status != 0)
        #expect(result.output.contains(complaint), "\(result.output)")
    }

    /// A new temporary folder holding a copy of the repository file `path` at the same relative path, with one text
    /// replaced (which must occur).
    private func brokenCopy(of path: String, replacing original: String, with broken: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appending(path: "broken-\(UUID().uuidString)")
        let target = root.appending(path: path)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = try String(contentsOf: Repository.path(path), encoding: .utf8)
        #expect(text.contains(original), "\(path) no longer contains \(original)")
        try text.replacingOccurrences(of: original, with: broken).write(to: target, atomically: true, encoding: .utf8)
        return root
    }

    @Test func runbookCommandsAndPathsMatchTheRepository() throws {
        let result = try Repository.runTool("python", [Self.script("check_runbook.py"), Repository.root.path])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func alertRulesPassPromtoolChecksAndUnitTestsWithARunbookSectionEach() throws {
        let result = try Repository.runTool("python", [Self.script("check_rules.py"), Repository.root.path])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func runtimeStageInstallsExactlyTheLibrariesTheBinaryLoads() throws {
        let binary = Repository.path(".build/debug/push-worker").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build the package first")
        let result = try Repository.runTool(
            "python",
            [Self.script("check_image_libraries.py"), Repository.path("deploy/Dockerfile").path, binary])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(
        .enabled(
            if: ContainerEngine.available != nil,
            "no running container engine (docker or podman): the image build is checked where one exists"))
    func dockerfileBuildsAnImageThatPrintsItsVersion() throws {
        let engine = try #require(ContainerEngine.available)
        let tag = "push-worker:test-\(UUID().uuidString.prefix(8).lowercased())"
        let build = try ChildProcessResult.run(
            engine,
            [
                "build", "-f", Repository.path("deploy/Dockerfile").path, "--build-arg", "VERSION=9.9.9-test",
                "-t", tag, Repository.root.path,
            ])
        try #require(build.status == 0, "\(build.stderr.suffix(3000))")
        let version = try ChildProcessResult.run(engine, ["run", "--rm", tag, "--version"])
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "push-worker 9.9.9-test")
        _ = try? ChildProcessResult.run(engine, ["rmi", tag])
    }

    @Test func bothBaseImagesArePinnedByDigestAndTheRuntimeOneNamedInTheOCILabels() throws {
        let dockerfile = try String(contentsOf: Repository.path("deploy/Dockerfile"), encoding: .utf8)
        let bases = dockerfile.split(separator: "\n").filter { $0.hasPrefix("FROM ") }.map {
            String($0.split(separator: " ")[1])
        }
        #expect(bases.count == 2)
        for base in bases {
            #expect(base.wholeMatch(of: /[a-z0-9.\/-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}/) != nil, "\(base)")
        }
        let runtime = try #require(bases.last)
        let parts = runtime.split(separator: "@")
        try #require(parts.count == 2, "the runtime stage \(runtime) is not pinned by digest")
        let labels = Set(
            dockerfile.matches(of: /org\.opencontainers\.image\.([a-z.]+)="([^"]*)"/).map { "\($0.1)=\($0.2)" })
        #expect(labels.contains("base.digest=\(parts[1])"), "\(labels)")
        #expect(labels.contains("base.name=docker.io/library/\(parts[0])"), "\(labels)")
        #expect(labels.contains("version=${VERSION}"), "\(labels)")
        #expect(labels.contains { $0.hasPrefix("title=") })
    }

    @Test func dockerfilePassesHadolint() throws {
        let dockerfile = Repository.path("deploy/Dockerfile").path
        let result = try Repository.runTool(
            "hadolint", ["--config", Repository.path("deploy/hadolint.yaml").path, dockerfile])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func dockerBuildContextHoldsALoadablePackage() throws {
        let dockerfile = try String(contentsOf: Repository.path("deploy/Dockerfile"), encoding: .utf8)
        let ignore = try String(
            contentsOf: Repository.path("deploy/Dockerfile.dockerignore"), encoding: .utf8)
        let admitted = Set(
            ignore.split(separator: "\n").filter { $0.hasPrefix("!") }
                .map { $0.dropFirst().trimmingCharacters(in: CharacterSet(charactersIn: "/")) })
        let copied = dockerfile.split(separator: "\n").filter { $0.hasPrefix("COPY ") && !$0.contains("--from") }
            .map { String($0.split(separator: " ")[1]) }
        #expect(copied.contains("Package.swift"))

        let context = FileManager.default.temporaryDirectory.appending(path: "docker-context-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: context, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: context) }
        for source in copied {
            #expect(admitted.contains(source), "the Dockerfile copies \(source), which the .dockerignore leaves out")
            try FileManager.default.copyItem(at: Repository.path(source), to: context.appending(path: source))
        }
        let result = try Repository.runTool("swift", ["package", "--package-path", context.path, "describe"])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func rulesConfigMapHoldsTheBuiltInTable() throws {
        let configMap = Self.manifests.appending(path: "configmap.yaml").path
        let script = "import sys, yaml; sys.stdout.write(yaml.safe_load(open(sys.argv[1]))['data']['rules.json'])"
        let result = try Repository.runTool("python", ["-c", script, configMap])
        try #require(result.status == 0, "\(result.output)")
        let table = try JSONParser.parse(Array(result.output.utf8))
        #expect(table == (try JSONParser.parse(Array(RulesTable.standardJSON.utf8))))
    }

    @Test(arguments: [
        ("deployment.yaml", "path: /readyz", "path: /ready", "readinessProbe"),
        ("deployment.yaml", "memory: 300Mi", "memory: 100Mi", "memory limit"),
        (
            "deployment.yaml", #"push-worker/invalid-tokens-capacity: "1000000""#,
            #"push-worker/invalid-tokens-capacity: "3000000""#, "no room for the invalid-token table"
        ),
        (
            "deployment.yaml", "name: KAFKA_SESSION_TIMEOUT_MS", "name: KAFKA_SESSION_TIMEOUTS",
            "KAFKA_SESSION_TIMEOUT_MS"
        ),
        ("deployment.yaml", #"cpu: "1""#, "cpu: 500m", "sizing rule"),
        ("scaledobject.yaml", #"lagThreshold: "14000""#, #"lagThreshold: "28000""#, "sizing rule"),
        ("scaledobject.yaml", "offsetResetPolicy: earliest", "offsetResetPolicy: latest", "auto.offset.reset"),
        (
            "poddisruptionbudget.yaml", "unhealthyPodEvictionPolicy: AlwaysAllow",
            "unhealthyPodEvictionPolicy: IfHealthyBudget", "AlwaysAllow"
        ),
        ("podmonitor.yaml", "jobLabel: app.kubernetes.io/name", "jobLabel: app", "jobLabel"),
        (
            "prometheusrule.yaml", #"push_breaker_open{job="push-worker"}"#, "push_breaker_open",
            #"must select job="push-worker""#
        ),
        ("kustomization.yaml", "path: /metadata/labels/release", "path: /metadata/labels/team", "`release` label"),
        ("deployment.yaml", "name: PUSH_HTTP_PORT", "name: PUSH_HTTP_PORTS", "PUSH_HTTP_PORT"),
        ("deployment.yaml", "runAsNonRoot: true", "runAsNonRoot: false", "runAsNonRoot"),
        ("deployment.yaml", "enableServiceLinks: false", "enableServiceLinks: true", "enableServiceLinks"),
        ("deployment.yaml", "terminationGracePeriodSeconds: 60", "terminationGracePeriodSeconds: 40", "grace 25 s"),
        ("deployment.yaml", "  revisionHistoryLimit: 5", "  replicas: 2\n  revisionHistoryLimit: 5", "sets replicas"),
        (
            "deployment.yaml", "            optional: true\n            defaultMode", "            defaultMode",
            "optional"
        ),
        ("kustomization.yaml", "newTag: 0.1.0", "newTag: latest", "must set a tag"),
        (
            "scaledobject.yaml", "excludePersistentLag: \"true\"", "excludePersistentLag: \"false\"",
            "excludePersistentLag"
        ),
        ("scaledobject.yaml", "minReplicaCount: 2", "minReplicaCount: 0", "minReplicaCount"),
        (
            "scaledobject.yaml", "consumerGroup: push-worker", "consumerGroup: other",
            "bootstrap servers and the group push-worker"
        ),
        (
            "scaledobject.yaml", "consumerGroup: push-worker.fanout", "consumerGroup: push-worker",
            "the trigger on push.fanout must use the worker's bootstrap servers and the group push-worker.fanout"
        ),
        (
            "scaledobject.yaml", "topic: push.fanout", "topic: chat.messages",
            "no kafka trigger for the fan-out group push-worker.fanout"
        ),
        ("podmonitor.yaml", "port: http-status", "port: metrics", "PodMonitor"),
        ("networkpolicy.yaml", "port: 9464", "port: 8080", "NetworkPolicy"),
        (
            "prometheusrule.yaml", "          for: 2m\n          labels:\n            severity: critical\n",
            "          for: 2m\n", "severity"
        ),
    ])
    func checkerRejectsABrokenManifest(file: String, original: String, broken: String, complaint: String) throws {
        let copy = try copyOfManifests(replacing: original, with: broken, in: file)
        defer { try? FileManager.default.removeItem(at: copy) }
        let result = try Repository.runTool("python", [Self.checker, copy.path])
        #expect(result.status != 0)
        #expect(result.output.contains(complaint), "\(result.output)")
    }

    @Test func schemaValidationRejectsAnUnknownField() throws {
        let copy = try copyOfManifests(
            replacing: "  revisionHistoryLimit:", with: "  revisionHistoryLimits:", in: "deployment.yaml")
        defer { try? FileManager.default.removeItem(at: copy) }
        let file = copy.appending(path: "deployment.yaml").path
        let result = try Repository.runTool("kubernetes-validate", ["--strict", "-k", Self.kubernetesVersion, file])
        #expect(result.status != 0)
        #expect(result.output.contains("'revisionHistoryLimits' was unexpected"), "\(result.output)")
    }

    /// A temporary copy of deploy/kubernetes with one text replaced (which must occur) in one file.
    private func copyOfDeployment(replacing original: String, with broken: String, in file: String) throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appending(path: "kubernetes-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Repository.path("deploy/kubernetes"), to: copy)
        let target = copy.appending(path: file)
        let text = try String(contentsOf: target, encoding: .utf8)
        #expect(text.contains(original), "\(file) no longer contains \(original)")
        try text.replacingOccurrences(of: original, with: broken).write(to: target, atomically: true, encoding: .utf8)
        return copy
    }

    /// A temporary copy of the manifests with one text replaced (which must occur) in one file.
    private func copyOfManifests(replacing original: String, with broken: String, in file: String) throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appending(path: "manifests-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.manifests, to: copy)
        let target = copy.appending(path: file)
        let text = try String(contentsOf: target, encoding: .utf8)
        #expect(text.contains(original), "\(file) no longer contains \(original)")
        try text.replacingOccurrences(of: original, with: broken).write(to: target, atomically: true, encoding: .utf8)
        return copy
    }
}

/// Executables on PATH.
enum Tool {
    /// The executable `name` on PATH, if there is one.
    static func onPath(_ name: String) -> URL? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { URL(filePath: String($0)).appending(path: name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

/// A container engine to build the image with: `docker` or `podman` on PATH whose `info` reaches a running engine
/// (a client without a daemon does not count).
enum ContainerEngine {
    static let available: URL? = ["docker", "podman"].lazy.compactMap { name -> URL? in
        guard let candidate = Tool.onPath(name), (try? ChildProcessResult.run(candidate, ["info"]))?.status == 0 else {
            return nil
        }
        return candidate
    }.first
}
