/// Which receipts a statistic counts: all of them, those of one replay run, or none from replays. Pure.
public enum ReceiptFilter: Sendable, Equatable {
    case all
    case replayRun(String)
    case noReplays

    /// Whether `receipt` counts.
    public func admits(_ receipt: ReceiptFacts) -> Bool {
        switch self {
        case .all: true
        case .replayRun(let id): receipt.replayRunId == id
        case .noReplays: receipt.replayRunId == nil
        }
    }
}
