import PushPipeline

/// The planner of a replay: the live planner's decisions, then `--max-age` (sends of events created before
/// the cut-off become `expired`) and `--skip-delivered` (sends the receipts already show delivered are
/// `skipped`, reason `already_delivered`; those to tokens found dead, reason `invalid_token`). Pure.
public struct ReplayPlanner<Request: Sendable>: EventPlanner {
    let inner: any EventPlanner<Request>
    /// Events created more than this many milliseconds before "now" are not sent.
    let maxAgeMillis: Int64?
    let delivered: DeliveredSends?
    /// Told about every planned record, when given.
    var tally: ReplayTally?

    public init(
        inner: any EventPlanner<Request>, maxAgeMillis: Int64?, delivered: DeliveredSends?, tally: ReplayTally? = nil
    ) {
        self.inner = inner
        self.maxAgeMillis = maxAgeMillis
        self.delivered = delivered
        self.tally = tally
    }

    public func deviceBound(_ value: [UInt8]) -> Int { inner.deviceBound(value) }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        replanned(inner.plan(value, nowMillis: nowMillis), nowMillis: nowMillis)
    }

    /// The inner planner's preparation (an IMKIT message looks its clients up once), replanned.
    public func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<Request> {
        inner.prepare(value, scan: scan).map { result, nowMillis in replanned(result, nowMillis: nowMillis) }
    }

    private func replanned(
        _ result: Result<PlannedEvent<Request>, UndecodableEvent>, nowMillis: Int64
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
