import Synchronization

/// Whether the process is ready for work, as the sum of named conditions the application sets (`/readyz`).
///
/// The worker declares its conditions at start, e.g. `kafka.connected` and `providers.configured`, all unready,
/// sets each when it holds, and clears one again when it stops holding (or at shutdown, so the pod leaves
/// rotation before it drains).
public final class Readiness: Sendable {
    private let conditions: Mutex<[String: Bool]>

    /// Readiness with these conditions, none of them met yet.
    public init(conditions: [String]) {
        self.conditions = Mutex(Dictionary(conditions.map { ($0, false) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Records whether `condition` holds; a condition not declared before is added.
    public func set(_ condition: String, ready: Bool) {
        conditions.withLock { $0[condition] = ready }
    }

    /// True when every condition holds.
    public var isReady: Bool {
        conditions.withLock { $0.values.allSatisfy { $0 } }
    }

    /// The conditions that do not hold, sorted by name.
    public var unmetConditions: [String] {
        conditions.withLock { $0.filter { !$0.value }.map(\.key).sorted() }
    }
}
