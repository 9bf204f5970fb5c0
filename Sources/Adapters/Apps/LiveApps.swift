import Essentials

/// The clients of the apps that sent lately, made on first use and bounded: at most `maximum` apps at once (making
/// one more drops the least recently used), and an app unused for `idleMillis` is dropped by `dropIdle`. An entry
/// made for an older `generation` of the app's files is replaced. Apps are told apart by their ids' bytes (`ByteID`).
/// Pure: the caller passes the time.
struct LiveApps<Value> {
    let maximum: Int
    let idleMillis: Int64
    private var entries: [ByteID: Entry] = [:]

    private struct Entry {
        var value: Value
        var generation: Int
        var lastUsedMillis: Int64
    }

    init(maximum: Int, idleMillis: Int64) {
        self.maximum = max(1, maximum)
        self.idleMillis = max(0, idleMillis)
    }

    /// How many apps have live clients.
    var count: Int { entries.count }

    /// The value of `app` for `generation`, made with `make` when there is none (or one of another generation).
    mutating func value(
        for app: String, generation: Int, nowMillis: Int64, make: () -> Value
    ) -> Value {
        let app = ByteID(app)
        if var entry = entries[app], entry.generation == generation {
            entry.lastUsedMillis = nowMillis
            entries[app] = entry
            return entry.value
        }
        entries[app] = nil
        if entries.count >= maximum, let oldest = entries.min(by: { $0.value.lastUsedMillis < $1.value.lastUsedMillis })
        {
            entries[oldest.key] = nil
        }
        let value = make()
        entries[app] = Entry(value: value, generation: generation, lastUsedMillis: nowMillis)
        return value
    }

    /// Drops the apps unused for `idleMillis` or more; returns them.
    mutating func dropIdle(nowMillis: Int64) -> [String] {
        let idle = entries.filter {
            nowMillis.subtractingReportingOverflow($0.value.lastUsedMillis).partialValue >= idleMillis
        }
        .keys.sorted()
        for app in idle { entries[app] = nil }
        return idle.map(\.text)
    }
}
