public import KafkaTypes

/// A planner that passes another planner's decisions through a rewrite: the device bound and the preparation are the
/// inner planner's, and every plan it makes goes through `rewritten(_:nowMillis:)`. Generic over its inner planner,
/// so that a rewrite on the worker's path is compiled for the planner it wraps.
public protocol RewritingPlanner: EventPlanner {
    associatedtype Inner: EventPlanner where Inner.Request == Request
    /// The planner whose decisions are rewritten.
    var inner: Inner { get }
    /// `result`, the inner planner's plan as of `nowMillis`, rewritten (handed over: a rewrite that keeps the plan
    /// returns it without a copy).
    func rewritten(
        _ result: consuming Result<PlannedEvent<Request>, UndecodableEvent>, nowMillis: Int64
    ) -> Result<PlannedEvent<Request>, UndecodableEvent>
}

extension RewritingPlanner {
    public func deviceBound(_ value: [UInt8]) -> Int { inner.deviceBound(value) }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        rewritten(inner.plan(value, nowMillis: nowMillis), nowMillis: nowMillis)
    }

    /// The inner planner's preparation (an IMKIT message looks its clients up once), its plan rewritten.
    public func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<Request> {
        inner.prepare(value, scan: scan).map { result, nowMillis in rewritten(result, nowMillis: nowMillis) }
    }

    /// The inner planner's preparation of the record, its plan rewritten.
    public func prepare(_ record: KafkaRecord, scan: RecordScan) -> PreparedPlan<Request> {
        inner.prepare(record, scan: scan).map { result, nowMillis in rewritten(result, nowMillis: nowMillis) }
    }
}
