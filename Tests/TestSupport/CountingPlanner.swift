public import PushPipeline
import Synchronization

/// `FakePlanner` counting the devices it planned and, at every plan, the most devices planned and not yet
/// finished (`finished` says how many are, e.g. the receipts produced so far).
public final class CountingPlanner: EventPlanner {
    private let inner = FakePlanner()
    private let finished: @Sendable () -> Int
    private let counts = Mutex((planned: 0, mostUnfinished: 0))

    public init(finished: @escaping @Sendable () -> Int) {
        self.finished = finished
    }

    /// Devices planned so far.
    public var planned: Int { counts.withLock { $0.planned } }
    /// The most devices planned and not finished, seen right after a plan.
    public var mostUnfinished: Int { counts.withLock { $0.mostUnfinished } }

    public func deviceBound(_ value: [UInt8]) -> Int { inner.deviceBound(value) }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<String>, UndecodableEvent> {
        let result = inner.plan(value, nowMillis: nowMillis)
        if case .success(let event) = result {
            counts.withLock { counts in
                counts.planned += event.devices.count
                counts.mostUnfinished = max(counts.mostUnfinished, counts.planned - finished())
            }
        }
        return result
    }
}
