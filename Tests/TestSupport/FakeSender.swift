import Essentials
public import PushCore
public import PushPipeline
public import Synchronization

/// A provider whose answers are scripted per request (`message/device`); unscripted requests are
/// delivered. Requests named in `held` wait until released. Records the order of sends. A Web Push request
/// `message/w<letter>…` goes to the push service `https://<letter>.example`.
public final class FakeSender: PushSender {
    public struct State {
        public var scripts: [String: [DeliveryOutcome]] = [:]
        public var held: Set<String> = []
        public var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
        public var sent: [String] = []
        /// The requests handed over in a `sendAll`, in order.
        public var sentTogether: [String] = []
        public var fallback: DeliveryOutcome = .delivered(providerMessageId: "id")
    }

    public let state = Mutex(State())

    public init() {}

    public func script(_ request: String, _ outcomes: [DeliveryOutcome]) {
        state.withLock { $0.scripts[request] = outcomes }
    }

    public func hold(_ request: String) { state.withLock { _ = $0.held.insert(request) } }

    public func answerEverything(with outcome: DeliveryOutcome) { state.withLock { $0.fallback = outcome } }

    public func release(_ request: String) {
        let waiters = state.withLock { state in
            state.held.remove(request)
            return state.waiting.removeValue(forKey: request) ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    public var sent: [String] { state.withLock { $0.sent } }
    public var sentTogether: [String] { state.withLock { $0.sentTogether } }

    /// The default's concurrent `send` each, the requests recorded as handed over together (`sentTogether`).
    public func sendAll(_ sends: [PushSend<String>], answer: @escaping @Sendable (Int, DeliveryOutcome) -> Void) async {
        state.withLock { $0.sentTogether += sends.map(\.request) }
        await concurrently(sends.count) { index in
            answer(index, await self.send(sends[index].request, to: sends[index].provider))
        }
    }

    public func send(_ request: String, to provider: PushProvider) async -> DeliveryOutcome {
        state.withLock { $0.sent.append(request) }
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                guard state.held.contains(request) else { return true }
                state.waiting[request, default: []].append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        return state.withLock { state in
            guard var outcomes = state.scripts[request], !outcomes.isEmpty else { return state.fallback }
            let next = outcomes.removeFirst()
            state.scripts[request] = outcomes
            return next
        }
    }

    public func origin(of request: String, to provider: PushProvider) -> String? {
        guard provider == .webpush, let device = request.split(separator: "/").last, device.count > 1 else {
            return nil
        }
        return "https://\(device.dropFirst().prefix(1)).example"
    }
}
