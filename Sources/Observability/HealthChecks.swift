import Essentials
import Synchronization

/// Named checks behind `/healthz` (liveness) or `/readyz` (readiness), each evaluated when a probe asks.
///
/// A check is either a closure that looks at live state (the time of the last poll, the consumer's group state)
/// or a condition the application sets (`set(_:passing:detail:)`), such as "the pipeline is running". A probe
/// passes when every check passes; the answer reports each check, so an operator sees which one failed.
public final class HealthChecks: Sendable {
    private let checks = Mutex<[String: @Sendable () -> HealthCheckResult]>([:])

    /// No checks yet (a probe over no checks passes).
    public init() {}

    /// Adds (or replaces) the check `name`, evaluated at every probe; it must be quick and must not block.
    public func register(_ name: String, _ check: @escaping @Sendable () -> HealthCheckResult) {
        checks.withLock { $0[name] = check }
    }

    /// Sets the condition `name` to a fixed result until it is set again.
    public func set(_ name: String, passing: Bool, detail: String = "") {
        let result = HealthCheckResult(passing: passing, detail: detail)
        register(name) { result }
    }

    /// Evaluates every check, outside the lock, in name order.
    public func evaluate() -> HealthReport {
        let current = checks.withLock { $0 }
        return HealthReport(results: current.sorted { $0.key < $1.key }.map { ($0.key, $0.value()) })
    }
}

/// The outcome of one check: whether it passes, and a short reason for an operator.
public struct HealthCheckResult: Sendable, Equatable {
    public var passing: Bool
    public var detail: String

    public init(passing: Bool, detail: String = "") {
        self.passing = passing
        self.detail = detail
    }

    /// A passing check with `detail`.
    public static func pass(_ detail: String = "") -> Self { Self(passing: true, detail: detail) }

    /// A failing check with its reason.
    public static func fail(_ detail: String) -> Self { Self(passing: false, detail: detail) }
}

/// Every check's result at one probe.
public struct HealthReport: Sendable {
    /// The checks in name order.
    public var results: [(name: String, result: HealthCheckResult)]

    /// True when every check passes.
    public var passing: Bool { results.allSatisfy(\.result.passing) }

    /// The names of the failing checks.
    public var failing: [String] { results.filter { !$0.result.passing }.map(\.name) }

    /// `{"status":"pass"|"fail","checks":{"name":{"passing":…,"detail":"…"}}}`, keys sorted.
    public var json: String {
        var checks: [String: LogMetadataValue] = [:]
        for (name, result) in results {
            checks[name] = .dictionary(["passing": .bool(result.passing), "detail": .string(result.detail)])
        }
        var writer = JSONWriter()
        writer.value(.dictionary(["status": .string(passing ? "pass" : "fail"), "checks": .dictionary(checks)]))
        return writer.text + "\n"
    }
}
