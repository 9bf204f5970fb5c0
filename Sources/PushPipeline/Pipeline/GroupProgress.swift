import PushCore

/// The first attempts of records started together, as they arrive: which record and device each send is for, and
/// which records have every first attempt. Records join as the group takes them on (`add`), numbered in order, as
/// are their sends. Pure bookkeeping; the sends go out through `DeviceDelivery.attemptAll`.
struct GroupProgress<Request: Sendable> {
    /// Each send's provider.
    private var providers: [PushProvider] = []
    /// The record and device of each send.
    private var owners: [(record: Int, device: Int)] = []
    /// Per record: one entry per device of its plan, `nil` until its result or first attempt is known.
    private(set) var devices: [[StartedRecord<Request>.Device?]] = []
    /// Per record: its sends not answered yet.
    private var unanswered: [Int] = []
    /// The records with a send not answered yet.
    private var waitingRecords = 0

    /// Records joining: numbered after the records added before, their sends after the sends before (the results of
    /// the devices their plans settled are known at once). Returns their sends, in record order then device order
    /// (each present: optional for `PendingSends`, which takes them out as they go), the number of the first, and
    /// the joining records that have none, ready now. `records` are read where the group keeps them (its plans, every
    /// one present as it joins), and only a send's request is copied out of them.
    mutating func add(
        _ records: ArraySlice<PlannedRecord<Request>?>,
        unsent: (PlannedEvent<Request>) -> [StartedRecord<Request>.Device?]
    ) -> (sends: [PushSend<Request>?], firstSend: Int, ready: [Int]) {
        let firstSend = owners.count
        var sends: [PushSend<Request>?] = []
        var ready: [Int] = []
        for slot in records.indices {
            let position = devices.count
            guard case .event(let event)? = records[slot]?.plan else {
                devices.append([])
                unanswered.append(0)
                ready.append(position)
                continue
            }
            devices.append(unsent(event))
            var count = 0
            for index in event.devices.indices {
                guard case .send(let provider, let request) = event.devices[index].decision else { continue }
                sends.append(PushSend(request, to: provider))
                providers.append(provider)
                owners.append((position, index))
                count += 1
            }
            unanswered.append(count)
            if count > 0 { waitingRecords += 1 } else { ready.append(position) }
        }
        return (sends, firstSend, ready)
    }

    /// Whether any record still waits for an answer.
    var isWaiting: Bool { waitingRecords > 0 }

    /// Records the answer of send `index`; returns the record it completed, if it did. An index out of range, or of a
    /// send answered before, is ignored.
    mutating func arrived(_ index: Int, _ attempt: Attempt) -> Int? {
        guard owners.indices.contains(index) else { return nil }
        let (record, device) = owners[index]
        guard unanswered[record] > 0, devices[record][device] == nil else { return nil }
        devices[record][device] = .attempted(attempt)
        unanswered[record] -= 1
        guard unanswered[record] == 0 else { return nil }
        waitingRecords -= 1
        return record
    }

    /// Hands over the first attempts of `record`, which goes on (every send of it was answered), and forgets them:
    /// a late answer for it is ignored.
    mutating func take(_ record: Int) -> [StartedRecord<Request>.Device?] {
        guard devices.indices.contains(record) else { return [] }
        var taken: [StartedRecord<Request>.Device?] = []
        swap(&taken, &devices[record])
        return taken
    }

    /// Gives every send not answered `attempt(provider)`, an attempt to its own provider; returns the records that
    /// completes.
    mutating func answerTheRest(with attempt: (PushProvider) -> Attempt) -> [Int] {
        var completed: [Int] = []
        for index in owners.indices {
            let (record, device) = owners[index]
            if unanswered[record] > 0, devices[record][device] == nil,
                let done = arrived(index, attempt(providers[index]))
            {
                completed.append(done)
            }
        }
        return completed
    }
}
