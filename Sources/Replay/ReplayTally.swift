import PushCore
public import PushPipeline
import Synchronization

/// Counts what a replay does, for its progress line and summary: plan-time decisions (told by the planner)
/// and what the pipeline reports (receipts, dead letters, retry hand-offs).
public final class ReplayTally: PipelineObserver {
    private let summary: Mutex<ReplaySummary>

    public init(_ summary: ReplaySummary) {
        self.summary = Mutex(summary)
    }

    public var current: ReplaySummary { summary.withLock { $0 } }

    public func update(_ body: (inout ReplaySummary) -> Void) {
        summary.withLock { body(&$0) }
    }

    /// Counts one planned record: its sends and its skips by reason.
    public func planned<Request>(_ result: Result<PlannedEvent<Request>, UndecodableEvent>) {
        summary.withLock { summary in
            summary.records += 1
            guard case .success(let event) = result else { return }
            for device in event.devices {
                switch device.decision {
                case .send: summary.sends += 1
                case .skipped(let reason): summary.skipped[reason.code, default: 0] += 1
                case .expired, .rejected, .deadLetter: break
                }
            }
        }
    }

    public func observe(_ event: PipelineEvent) {
        switch event {
        case .receipt(let status): summary.withLock { $0.statuses[status.rawValue, default: 0] += 1 }
        case .deadLettered: summary.withLock { $0.deadLetters += 1 }
        case .retryScheduled: summary.withLock { $0.retriesHandedOff += 1 }
        default: break
        }
    }
}
