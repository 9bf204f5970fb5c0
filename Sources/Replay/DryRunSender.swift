public import PushCore
public import PushPipeline

/// `--dry-run`: sends nothing and answers every request as if the provider had accepted it.
public struct DryRunSender<Request: Sendable>: PushSender {
    public init() {}

    public func send(_ request: Request, to provider: PushProvider) async -> DeliveryOutcome {
        .delivered(providerMessageId: nil)
    }
}
