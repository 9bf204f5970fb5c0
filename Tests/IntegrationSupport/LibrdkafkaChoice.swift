public import Foundation
import TestSupport

/// The librdkafka a test's child processes run on, as `deploy/local/librdkafka.sh` chooses it for the scripts:
/// `PUSH_LIBRDKAFKA=current` (the default) puts `.venv/librdkafka` (the pinned confluent-kafka wheel's, made by
/// `deploy/local/setup.sh`) first on `LD_LIBRARY_PATH`, `PUSH_LIBRDKAFKA=debian` leaves Debian's 2.0.2.
public enum LibrdkafkaChoice {
    /// `environment` with `LD_LIBRARY_PATH` and `PUSH_LIBRDKAFKA` set for the choice of `parent` (the test
    /// process's environment): the library path of `environment`, else of `parent`, with the wheel's folder first
    /// or left out.
    public static func applied(
        to environment: [String: String], parent: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String: String] {
        let choice = parent["PUSH_LIBRDKAFKA"] ?? "current"
        let folder = Repository.path(".venv/librdkafka").path
        var path = (environment["LD_LIBRARY_PATH"] ?? parent["LD_LIBRARY_PATH"] ?? "").split(separator: ":")
            .map(String.init).filter { !$0.isEmpty && $0 != folder }
        if choice == "current" && FileManager.default.fileExists(atPath: folder + "/librdkafka.so.1") {
            path.insert(folder, at: 0)
        }
        var applied = environment
        applied["PUSH_LIBRDKAFKA"] = choice
        applied["LD_LIBRARY_PATH"] = path.joined(separator: ":")
        return applied
    }

    /// The version of the librdkafka children run on: the wheel's (asked of `.venv`'s Python), or Debian's
    /// (asked of `dpkg-query`).
    public static func chosenVersion(parent: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let result =
            parent["PUSH_LIBRDKAFKA"] == "debian"
            ? try ChildProcessResult.run(
                URL(filePath: "/usr/bin/dpkg-query"), ["-W", "-f", "${Version}", "librdkafka1"])
            : try ChildProcessResult.run(
                Repository.python, ["-c", "import confluent_kafka; print(confluent_kafka.libversion()[0])"])
        // Debian's package version, e.g. 2.0.2-1: the library's is before the revision.
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return String(text.prefix { $0 != "-" })
    }
}
