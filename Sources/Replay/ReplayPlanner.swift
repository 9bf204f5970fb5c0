import PushCore
public import PushPipeline

/// The planner of a replay: the live planner's decisions, then `--max-age` (sends of events created before
/// the cut-off become `expired`) and `--skip-delivered` (sends the receipts already show delivered are
/// `skipped`, reason `already_delivered`; those to tokens found dead, reason `invalid_token`). Pure.
public struct ReplayPlanner<Inner: EventPlanner>: RewritingPlanner {
    public typealias Request = Inner.Request

    public let inner: Inner
    /// Events created more than this many milliseconds before "now" are not sent.
    let maxAgeMillis: Int64?
    let delivered: DeliveredSends?
    /// Told about every planned record, when given.
    var tally: ReplayTally?

    public init(
        inner: Inner, maxAgeMillis: Int64?, delivered: DeliveredSends?, tally: ReplayTally? = nil
    ) {
        self.inner = inner
        self.maxAgeMillis = maxAgeMillis
        self.delivered = delivered
        self.tally = tally
    }

    /// `result` with `--max-age` and `--skip-delivered` applied, told to the tally.
    public func rewritten(
        _ result: consuming Result<PlannedEvent<Request>, UndecodableEvent>, nowMillis: Int64
    ) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        let result = result.map { event in
            var event = event
            let tooOld =
                if let maxAgeMillis, let created = event.eventTimeMillis {
                    created < (nowMillis > Int64.min + maxAgeMillis ? nowMillis - maxAgeMillis : Int64.min)
                } else { false }
            for index in event.devices.indices {
                guard case .send = event.devices[index].decision else { continue }
                if tooOld {
                    event.devices[index].decision = .expired
                } else if let outcome = delivered?.outcome(
                    messageId: event.messageId, tokenHash: event.devices[index].target.tokenHash)
                {
                    event.devices[index].decision = .skipped(
                        reason: outcome == .delivered ? .alreadyDelivered : .invalidToken)
                }
            }
            return event
        }
        tally?.planned(result)
        return result
    }
}
