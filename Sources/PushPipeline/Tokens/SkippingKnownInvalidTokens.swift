import PushCore

/// The planner's decisions, with every send to a token known dead (`InvalidTokenTable`) turned into a skip
/// (reason `invalid_token`): a token a provider declared unregistered stays dead, and Apple treats repeated
/// pushes to dead tokens as a reason to throttle a sender. While an app's answers from a provider are suspect
/// (`invalidations`), its sends to that provider are not skipped: the table may hold tokens a misconfiguration called
/// dead. Pure apart from reading the table and the guard.
public struct SkippingKnownInvalidTokens<Inner: EventPlanner>: RewritingPlanner {
    public typealias Request = Inner.Request

    public let inner: Inner
    let table: InvalidTokenTable
    let invalidations: TokenInvalidationWatch?

    public init(inner: Inner, table: InvalidTokenTable, invalidations: TokenInvalidationWatch? = nil) {
        self.inner = inner
        self.table = table
        self.invalidations = invalidations
    }

    /// `result` with every send to a token known dead turned into a skip.
    public func rewritten(
        _ result: consuming Result<PlannedEvent<Request>, UndecodableEvent>, nowMillis: Int64
    ) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        // No token known dead (none called dead yet, or every one deleted): the plan stays as it is, uncopied.
        guard !table.isEmpty else { return result }
        switch consume result {
        case .failure(let failure):
            return .failure(failure)
        case .success(var event):
            for index in event.devices.indices {
                guard let provider = event.devices[index].decision.provider,
                    table.contains(event.devices[index].target),
                    invalidations?.isSuspended(.init(app: event.appID, provider: provider), nowMillis: nowMillis)
                        != true
                else { continue }
                event.devices[index].decision = .skipped(reason: .invalidToken)
            }
            return .success(event)
        }
    }
}
