import Essentials
import Synchronization

/// Named checks behind `/healthz` (liveness) or `/readyz` (readiness), each evaluated when a probe asks.
///
/// A check is either a closure that looks at live state (the time of the last poll, the consumer's group state)
/// or a condition the application sets (`set(_:passing:detail:)`), such as "the pipeline is running". A probe
/// passes when no check fails; a check that warns is reported without failing the probe (something an operator
/// should see that another pod would not cure). The answer reports each check, so an operator sees which one
/// failed or warned.
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

/// The state of one check, or of a whole probe: the `status` values of the IETF health-check response format.
public enum HealthStatus: String, Sendable, Comparable {
    /// Healthy.
    case pass
    /// Healthy for the probe, with a concern worth reporting (the probe still answers 200).
    case warn
    /// Unhealthy: the probe answers 503.
    case fail

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .pass: 0
        case .warn: 1
        case .fail: 2
        }
    }
}

/// The outcome of one check: its status, and a short reason for an operator.
public struct HealthCheckResult: Sendable, Equatable {
    public var status: HealthStatus
    public var detail: String

    public init(status: HealthStatus, detail: String = "") {
        self.status = status
        self.detail = detail
    }

    /// A check that passes (`passing`) or fails.
    public init(passing: Bool, detail: String = "") {
        self.init(status: passing ? .pass : .fail, detail: detail)
    }

    /// Whether the check lets its probe pass (it passes or only warns).
    public var passing: Bool { status != .fail }

    /// A passing check with `detail`.
    public static func pass(_ detail: String = "") -> Self { Self(status: .pass, detail: detail) }

    /// A check that reports a concern without failing its probe.
    public static func warn(_ detail: String) -> Self { Self(status: .warn, detail: detail) }

    /// A failing check with its reason.
    public static func fail(_ detail: String) -> Self { Self(status: .fail, detail: detail) }
}

/// Every check's result at one probe.
public struct HealthReport: Sendable {
    /// The checks in name order.
    public var results: [(name: String, result: HealthCheckResult)]

    /// The worst status of the checks (`pass` over no checks).
    public var status: HealthStatus { results.map(\.result.status).max() ?? .pass }

    /// True when no check fails.
    public var passing: Bool { status != .fail }

    /// The names of the failing checks.
    public var failing: [String] { results.filter { !$0.result.passing }.map(\.name) }

    /// `{"status":"pass"|"warn"|"fail","checks":{"name":{"passing":…,"detail":"…"}}}`, keys sorted; a check that
    /// warns also carries `"status":"warn"`.
    public var json: String {
        var checks: [String: LogMetadataValue] = [:]
        for (name, result) in results {
            var check: [String: LogMetadataValue] = [
                "passing": .bool(result.passing), "detail": .string(result.detail),
            ]
            if result.status == .warn { check["status"] = .string(result.status.rawValue) }
            checks[name] = .dictionary(check)
        }
        var writer = JSONWriter()
        writer.value(.dictionary(["status": .string(status.rawValue), "checks": .dictionary(checks)]))
        return writer.text + "\n"
    }
}
