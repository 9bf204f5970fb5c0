/// `--dry-run`: sends nothing and answers every request as if the provider had accepted it.
struct DryRunSender<Request: Sendable>: PushSender {
    func send(_ request: Request, to provider: PushProvider) async -> SendOutcome {
        .delivered(providerMessageId: nil)
    }
}
