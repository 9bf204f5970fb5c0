import ChildProcessTesting
import Foundation
import PushCore
import Testing

/// The deployment files checked offline: Kubernetes JSON schemas (kubernetes-validate), the project's own
/// requirements on the manifests (check_manifests.py) and hadolint for the Dockerfile. No cluster, no Docker engine.
@Suite("Deployment files")
struct DeploymentFilesTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let manifests = root.appending(path: "deploy/kubernetes")
    static let checker = root.appending(path: "Tests/DeploymentTests/check_manifests.py").path
    /// The oldest Kubernetes minor release the manifests must work on.
    static let kubernetesVersion = "1.30.0"

    static func resourceFiles(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".yaml") && $0 != "kustomization.yaml" }.sorted()
            .map { directory.appending(path: $0).path }
    }

    @Test func manifestsValidateAgainstTheKubernetesSchemasStrictly() throws {
        let files = try Self.resourceFiles(in: Self.manifests)
        #expect(files.count >= 4)
        let result = try Tool.run("kubernetes-validate", ["--strict", "-k", Self.kubernetesVersion] + files)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func manifestsMeetTheWorkersRequirements() throws {
        let result = try Tool.run("python", [Self.checker, Self.manifests.path])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func dockerfilePassesHadolint() throws {
        let dockerfile = Self.root.appending(path: "deploy/Dockerfile").path
        let result = try Tool.run(
            "hadolint", ["--config", Self.root.appending(path: "deploy/hadolint.yaml").path, dockerfile])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func dockerBuildContextHoldsALoadablePackage() throws {
        let dockerfile = try String(contentsOf: Self.root.appending(path: "deploy/Dockerfile"), encoding: .utf8)
        let ignore = try String(
            contentsOf: Self.root.appending(path: "deploy/Dockerfile.dockerignore"), encoding: .utf8)
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
            try FileManager.default.copyItem(at: Self.root.appending(path: source), to: context.appending(path: source))
        }
        let result = try Tool.run("swift", ["package", "--package-path", context.path, "describe"])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func rulesConfigMapHoldsTheBuiltInTable() throws {
        let configMap = Self.manifests.appending(path: "configmap.yaml").path
        let script = "import sys, yaml; sys.stdout.write(yaml.safe_load(open(sys.argv[1]))['data']['rules.json'])"
        let result = try Tool.run("python", ["-c", script, configMap])
        try #require(result.status == 0, "\(result.output)")
        let table = try JSONParser.parse(Array(result.output.utf8))
        #expect(table == (try JSONParser.parse(Array(RulesTable.standardJSON.utf8))))
    }

    @Test(arguments: [
        ("deployment.yaml", "path: /readyz", "path: /ready", "readinessProbe"),
        ("deployment.yaml", "memory: 256Mi", "memory: 100Mi", "memory limit"),
        ("deployment.yaml", "name: PUSH_HTTP_PORT", "name: PUSH_HTTP_PORTS", "PUSH_HTTP_PORT"),
        ("deployment.yaml", "runAsNonRoot: true", "runAsNonRoot: false", "runAsNonRoot"),
        ("deployment.yaml", "enableServiceLinks: false", "enableServiceLinks: true", "enableServiceLinks"),
        ("deployment.yaml", "terminationGracePeriodSeconds: 40", "terminationGracePeriodSeconds: 30", "grace 25 s"),
    ])
    func checkerRejectsABrokenManifest(file: String, original: String, broken: String, complaint: String) throws {
        let copy = try copyOfManifests(replacing: original, with: broken, in: file)
        defer { try? FileManager.default.removeItem(at: copy) }
        let result = try Tool.run("python", [Self.checker, copy.path])
        #expect(result.status != 0)
        #expect(result.output.contains(complaint), "\(result.output)")
    }

    @Test func schemaValidationRejectsAnUnknownField() throws {
        let copy = try copyOfManifests(replacing: "  replicas:", with: "  replica:", in: "deployment.yaml")
        defer { try? FileManager.default.removeItem(at: copy) }
        let file = copy.appending(path: "deployment.yaml").path
        let result = try Tool.run("kubernetes-validate", ["--strict", "-k", Self.kubernetesVersion, file])
        #expect(result.status != 0)
        #expect(result.output.contains("'replica' was unexpected"), "\(result.output)")
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

/// Runs the Python tools that setup.sh installs into `.venv` (found there or on PATH).
enum Tool {
    struct Result {
        var status: Int32
        var output: String
    }

    static func run(_ name: String, _ arguments: [String]) throws -> Result {
        let venv = DeploymentFilesTests.root.appending(path: ".venv/bin/\(name)")
        let result =
            FileManager.default.isExecutableFile(atPath: venv.path)
            ? try ChildProcessResult.run(venv, arguments)
            : try ChildProcessResult.run(URL(filePath: "/usr/bin/env"), [name] + arguments)
        let hint = result.status == 127 ? "\n(\(name) not found: run deploy/local/setup.sh)" : ""
        return Result(status: result.status, output: result.stdout + result.stderr + hint)
    }
}
