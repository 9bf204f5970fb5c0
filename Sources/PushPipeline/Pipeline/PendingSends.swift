import Synchronization

/// The sends of records started together not handed to the sender yet, each taken out as its wave goes: a group
/// whose slowest answer is still out holds no request it already sent, only the wave's that is in flight.
final class PendingSends<Request: Sendable>: Sendable {
    /// Each send's provider, by index.
    let providers: [PushProvider]
    private let sends: Mutex<[PushSend<Request>?]>

    init(_ sends: [PushSend<Request>]) {
        providers = sends.map(\.provider)
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

    /// The sends at `indices` not taken yet, taken out.
    func take(_ indices: [Int]) -> [(index: Int, send: PushSend<Request>)] {
        sends.withLock { sends in
            indices.compactMap { index in
                guard sends.indices.contains(index), let send = sends[index] else { return nil }
                sends[index] = nil
                return (index, send)
            }
        }
    }
}
