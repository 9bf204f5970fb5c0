import Synchronization

/// The sends of records started together not handed to the sender yet, each taken out as its wave goes: a group
/// whose slowest answer is still out holds no request it already sent, only the wave's that is in flight.
final class PendingSends<Request: Sendable>: Sendable {
    /// Each send's provider, by index.
    let providers: [PushProvider]
    private let sends: Mutex<[PushSend<Request>?]>

    /// `sends`, optional so that each can be moved out when it goes, not copied (`GroupProgress.add` hands every one
    /// present). An absent one is never split or taken, so the provider standing in its place is never read: the
    /// indices stay those of `sends`.
    init(_ sends: consuming [PushSend<Request>?]) {
        providers = sends.map { $0?.provider ?? .apns }
        self.sends = Mutex(sends)
    }

    /// The indices of the sends `goesAlone` picks, and of the others, in order.
    func split(goesAlone: (PushSend<Request>) -> Bool) -> (together: [Int], alone: [Int]) {
        sends.withLock { sends in
            var together: [Int] = []
            var alone: [Int] = []
            for (index, send) in sends.enumerated() {
                guard let send else { continue }
                if goesAlone(send) { alone.append(index) } else { together.append(index) }
            }
            return (together, alone)
        }
    }

    /// The sends at `indices` not taken yet, moved out, and their indices.
    func take(_ indices: [Int]) -> (indices: [Int], sends: [PushSend<Request>]) {
        sends.withLock { sends in
            var taken: (indices: [Int], sends: [PushSend<Request>]) = ([], [])
            taken.indices.reserveCapacity(indices.count)
            taken.sends.reserveCapacity(indices.count)
            for index in indices where sends.indices.contains(index) {
                guard let send = sends[index].take() else { continue }
                taken.indices.append(index)
                taken.sends.append(send)
            }
            return taken
        }
    }
}
