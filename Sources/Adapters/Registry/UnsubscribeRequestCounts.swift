package import Observability
import Synchronization

/// The unsubscribe requests of the `assigned` scope since the start (`UnsubscribeRequest`), by outcome:
/// `push_registry_unsubscribe_requests_total{outcome}`.
package final class UnsubscribeRequestCounts: Sendable {
    package enum Outcome: String, Sendable, CaseIterable {
        /// Written to the fan-out partition of a client whose registry partition was not restored on the pod that
        /// found its token dead.
        case routed
        /// Handled by the pod holding the client's partition, which deleted at least one key.
        case deleted
        /// Handled there, no key holding the token found (deleted before, a repeat, or subscribed again since).
        case none
    }

    private let counts = Mutex<[Outcome: Int]>([:])

    package init() {}

    package func count(_ outcome: Outcome) { counts.withLock { $0[outcome, default: 0] += 1 } }

    package subscript(outcome: Outcome) -> Int { counts.withLock { $0[outcome] ?? 0 } }

    /// Exports the counts, read at each scrape, every outcome from 0.
    package func register(in metrics: MetricsRegistry) {
        let counters = Outcome.allCases.map { outcome in
            (
                outcome,
                metrics.sampledCounter(
                    "push_registry_unsubscribe_requests_total",
                    help: "Requests to unsubscribe a dead token in its client's registry partition, by outcome.",
                    labels: ["outcome": outcome.rawValue])
            )
        }
        metrics.addCollector { [self] in
            for (outcome, counter) in counters { counter.advance(to: Double(self[outcome])) }
        }
    }
}
