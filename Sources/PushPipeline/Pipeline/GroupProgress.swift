import PushCore

/// The first attempts of records started together, as they arrive: which record and device each send is for, and
/// which records have every first attempt. Pure bookkeeping; the sends go out through `DeviceDelivery.attemptAll`.
struct GroupProgress<Request: Sendable> {
    /// Every send of the group, in record order, then device order, until `takeSends`.
    private var sends: [PushSend<Request>] = []
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

    /// The sends of `records` (the results of the devices their plans settled are known at once) and the records
    /// that have none, ready now.
    init(_ records: [PlannedRecord<Request>], unsent: (PlannedEvent<Request>) -> [StartedRecord<Request>.Device?]) {
        for (position, record) in records.enumerated() {
            guard case .event(let event) = record.plan else {
                devices.append([])
                unanswered.append(0)
                continue
            }
            devices.append(unsent(event))
            var count = 0
            for (index, device) in event.devices.enumerated() {
                guard case .send(let provider, let request) = device.decision else { continue }
                sends.append(PushSend(request, to: provider))
                providers.append(provider)
                owners.append((position, index))
                count += 1
            }
            unanswered.append(count)
            if count > 0 { waitingRecords += 1 }
        }
    }

    /// Every send of the group, in record order, then device order, handed over: the progress keeps none.
    mutating func takeSends() -> [PushSend<Request>] {
        defer { sends = [] }
        return sends
    }

    /// The records with no send: started as soon as planned.
    var readyAtOnce: [Int] { unanswered.indices.filter { unanswered[$0] == 0 } }

    /// Whether any record still waits for an answer.
    var isWaiting: Bool { waitingRecords > 0 }

    /// Records the answer of send `index`; returns the record it completed, if it did. An index out of range, or of a
    /// send answered before, is ignored.
    mutating func arrived(_ index: Int, _ attempt: Attempt) -> Int? {
        guard owners.indices.contains(index) else { return nil }
        let (record, device) = owners[index]
        guard unanswered[record] > 0, devices[record][device] == nil else { return nil }
        devices[record][device] = .attempted(providers[index], attempt)
        unanswered[record] -= 1
        guard unanswered[record] == 0 else { return nil }
        waitingRecords -= 1
        return record
    }

    /// Forgets the first attempts of `record`, which went on (every send of it was answered).
    mutating func forget(_ record: Int) {
        if devices.indices.contains(record) { devices[record] = [] }
    }

    /// Gives every send not answered `attempt`; returns the records that completes.
    mutating func answerTheRest(with attempt: Attempt) -> [Int] {
        var completed: [Int] = []
        for index in owners.indices {
            let (record, device) = owners[index]
            if unanswered[record] > 0, devices[record][device] == nil, let done = arrived(index, attempt) {
                completed.append(done)
            }
        }
        return completed
    }
}
