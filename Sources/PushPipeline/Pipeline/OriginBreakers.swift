/// The failure breakers of a provider's many push services, one per origin (Web Push: each endpoint's
/// `https://host[:port]`), so that a failing service holds back its own sends and no other's.
///
/// Origins come from the registry, that is from anyone who can subscribe, so the table is bounded: only an origin
/// that failed since its last success is tracked (a success forgets it), at most `capacity` of them; one without an
/// outcome for `idleMillis` is forgotten (an open breaker whose probe never came back included), and a new one past
/// the capacity takes the place of the one whose last outcome is oldest. Forgetting an origin closes its breaker.
/// Pure: time is a parameter.
struct OriginBreakers: Sendable, Equatable {
    let threshold: Int
    let probeIntervalMillis: Int64
    let capacity: Int
    let idleMillis: Int64
    private var entries: [String: Entry] = [:]
    private var lastSweepMillis: Int64 = 0

    private struct Entry: Sendable, Equatable {
        var state: BreakerState
        /// When the origin's last outcome was recorded.
        var touchedMillis: Int64
    }

    init(threshold: Int, probeIntervalMillis: Int64, capacity: Int, idleMillis: Int64) {
        self.threshold = threshold
        self.probeIntervalMillis = probeIntervalMillis
        self.capacity = max(1, capacity)
        self.idleMillis = idleMillis
    }

    /// The origins with failures since their last success.
    var trackedCount: Int { entries.count }

    /// The origins whose breaker is open.
    var openCount: Int { entries.values.count { $0.state.isOpen } }

    func isOpen(_ origin: String) -> Bool { entries[origin]?.state.isOpen == true }

    /// Whether a send to `origin` may go now: `nil` if so, else when its breaker lets the next probe through
    /// (epoch milliseconds). While open, one probe at a time is admitted when it is due.
    mutating func admit(_ origin: String, nowMillis: Int64) -> Int64? {
        guard var entry = entries[origin], entry.state.isOpen else { return nil }
        if entry.state.admit(nowMillis: nowMillis) {
            entries[origin] = entry
            return nil
        }
        return max(entry.state.nextProbeMillis, nowMillis)
    }

    /// Records how a send to `origin` ended; returns the breaker's new open state when it changed (a forgotten
    /// open breaker changes without an outcome and is not reported: `openCount` says it).
    mutating func record(providerFailure: Bool, origin: String, nowMillis: Int64) -> Bool? {
        sweep(nowMillis: nowMillis)
        guard providerFailure else {
            guard let entry = entries.removeValue(forKey: origin) else { return nil }
            return entry.state.isOpen ? false : nil
        }
        if entries[origin] == nil, entries.count >= capacity,
            let oldest = entries.min(by: { $0.value.touchedMillis < $1.value.touchedMillis })
        {
            entries[oldest.key] = nil
        }
        var entry =
            entries[origin]
            ?? Entry(
                state: BreakerState(threshold: threshold, probeIntervalMillis: probeIntervalMillis),
                touchedMillis: nowMillis)
        entry.touchedMillis = nowMillis
        let change = entry.state.record(providerFailure: true, nowMillis: nowMillis)
        entries[origin] = entry
        return change
    }

    /// Forgets the origins without an outcome for `idleMillis`; looks at most once per `idleMillis / 4`.
    private mutating func sweep(nowMillis: Int64) {
        guard nowMillis - lastSweepMillis >= idleMillis / 4 else { return }
        lastSweepMillis = nowMillis
        entries = entries.filter { nowMillis - $0.value.touchedMillis < idleMillis }
    }
}
