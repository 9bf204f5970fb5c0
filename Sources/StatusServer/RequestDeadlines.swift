/// The connections of a server and where each stands in its current request, deciding which to close so that slow
/// clients cannot hold every slot.
///
/// A connection is *reading* from when it opens, or from when its previous request ended, until its next request's
/// head and body are read whole; it is then *answering* until that request ends. Two rules close reading
/// connections, never answering ones:
/// - **Deadline**: one still reading `deadline` after it began reading (however often bytes trickle in).
/// - **Room**: when a connection opens with `limit` others open, the one that has been reading longest.
///
/// A connection chosen to close counts no more, and is not chosen again. Pure: time comes in as a parameter, the
/// time since any fixed origin.
struct RequestDeadlines {
    /// Where a connection stands.
    enum Stage: Equatable {
        /// Its request's head or body is still being read, since `since`.
        case reading(since: Duration)
        /// Its request was read whole and is being answered.
        case answering
        /// Chosen to close; its closing is awaited.
        case closing
    }

    /// How long the head and body of one request may take.
    let deadline: Duration
    /// The most connections open at once before the one reading longest makes room for a new one.
    let limit: Int
    private(set) var stages: [Int: Stage] = [:]
    /// The connections open and not closing.
    private(set) var counted = 0

    init(deadline: Duration, limit: Int) {
        self.deadline = deadline
        self.limit = max(1, limit)
    }

    /// Connection `id` opened at `now`; returns the connection to close to make room, if there is one to close.
    mutating func opened(_ id: Int, at now: Duration) -> Int? {
        stages[id] = .reading(since: now)
        counted += 1
        guard counted > limit else { return nil }
        let oldest = stages.compactMap { other, stage -> (since: Duration, id: Int)? in
            guard other != id, case .reading(let since) = stage else { return nil }
            return (since, other)
        }.min { $0 < $1 }
        guard let oldest else { return nil }
        close(oldest.id)
        return oldest.id
    }

    /// The request on `id` was read whole: it is being answered.
    mutating func read(_ id: Int) {
        guard case .reading? = stages[id] else { return }
        stages[id] = .answering
    }

    /// The request on `id` ended (answered, or abandoned) at `now`: the connection reads its next request from then.
    mutating func ended(_ id: Int, at now: Duration) {
        guard let stage = stages[id], stage != .closing else { return }
        stages[id] = .reading(since: now)
    }

    /// Connection `id` closed.
    mutating func closed(_ id: Int) {
        guard let stage = stages.removeValue(forKey: id) else { return }
        if stage != .closing { counted -= 1 }
    }

    private mutating func close(_ id: Int) {
        stages[id] = .closing
        counted -= 1
    }

    /// The connections still reading `deadline` after they began, in the order of their ids; each is marked closing.
    mutating func overdue(at now: Duration) -> [Int] {
        var late: [Int] = []
        for (id, stage) in stages {
            if case .reading(let since) = stage, now - since >= deadline { late.append(id) }
        }
        late.sort()
        for id in late { close(id) }
        return late
    }
}
