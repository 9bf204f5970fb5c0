import Essentials
import PushCore

extension DeviceDelivery {
    /// The first attempt of every send of records started together, made at the same time: `arrived` is called
    /// with the send's index in `sends` and its attempt as each one ends, from any thread; returns when every send
    /// ended. Throws `CancellationError` when the task is cancelled before the sends went or while they waited for
    /// permits (the sends not made then are never answered).
    ///
    /// The sends to a provider of one push service whose breaker is closed go to the sender together
    /// (`PushSender.sendAll`: one hand-over to the transport), in waves of as many as the send limits let in at once
    /// (`takeFreePermits`, `waitForPermits`); a wave's permits come back one by one as its answers arrive, and the
    /// next wave takes them; each wave is sent in a child task, the last in the calling task. The other sends, to a
    /// push service of many origins (each with its own breaker and limit) or to a provider whose breaker is open, are
    /// each attempted as `attempt` does, concurrently beside them.
    func attemptAll(_ sends: PendingSends<Request>, arrived: @escaping @Sendable (Int, Attempt) -> Void) async throws {
        try Task.checkCancellation()
        let providers = sends.providers
        try await withThrowingTaskGroup(of: Void.self) { waves in
            let (together, alone) = sends.split { send in
                sender.origin(of: send.request, to: send.provider) != nil || breakers.isOpen(send.provider)
            }
            let goingAlone = sends.take(alone)
            for (index, send) in zip(goingAlone.indices, goingAlone.sends) {
                waves.addTask { arrived(index, try await self.attempt(send.request, to: send.provider)) }
            }
            var pending = together
            while !pending.isEmpty {
                var wave = takeFreePermits(for: &pending, providers: providers)
                if wave.isEmpty {
                    wave = try await waitForPermits(for: &pending, providers: providers)
                    wave += takeFreePermits(for: &pending, providers: providers)
                }
                let going = sends.take(wave)
                // The last wave goes in this task: there is nothing left to wait for beside it.
                if pending.isEmpty {
                    await sendTogether(going.sends, at: going.indices, providers: providers, arrived: arrived)
                } else {
                    waves.addTask {
                        await self.sendTogether(going.sends, at: going.indices, providers: providers, arrived: arrived)
                    }
                }
            }
            try await waves.waitForAll()
        }
    }

    /// Sends `wave` (the sends at `indices`), whose permits were taken, in one `sendAll`; the sends are handed over,
    /// not copied, and an answer finds its provider by index.
    private func sendTogether(
        _ wave: [PushSend<Request>], at indices: [Int], providers: [PushProvider],
        arrived: @escaping @Sendable (Int, Attempt) -> Void
    ) async {
        for index in indices { observer.observe(.sendStarted(providers[index])) }
        let start = clock.nowMicros()
        await sender.sendAll(wave) { position, outcome in
            guard indices.indices.contains(position) else { return }
            let index = indices[position]
            arrived(index, self.finished(outcome, to: providers[index], origin: nil, startMicros: start, context: nil))
        }
    }

    /// Takes the sends of `pending` whose provider's and global send permits are free now (and nobody waits for them)
    /// out of it, with their permits.
    private func takeFreePermits(for pending: inout [Int], providers: [PushProvider]) -> [Int] {
        var wave: [Int] = []
        var kept: [Int] = []
        var full: [PushProvider] = []
        for index in pending {
            let provider = providers[index]
            if !full.contains(provider), takePermitNow(for: provider) {
                wave.append(index)
            } else {
                full.append(provider)
                kept.append(index)
            }
        }
        pending = kept
        return wave
    }

    /// Waits for the permits of the first pending send's provider, for as many of that provider's pending sends as
    /// `permitsWaitedFor` (a group woken by answers then sends a wave of several, not one send per wake-up), and
    /// takes those sends out of `pending`.
    private func waitForPermits(for pending: inout [Int], providers: [PushProvider]) async throws -> [Int] {
        guard let first = pending.first else { return [] }
        let provider = providers[first]
        let wave = Array(pending.lazy.filter { providers[$0] == provider }.prefix(permitsWaitedFor))
        try await acquirePermits(to: provider, origin: nil, count: wave.count)
        let taken = Set(wave)
        pending.removeAll { taken.contains($0) }
        return wave
    }

    /// How many sends' permits a group waits for when none is free: a sixteenth of the smaller of the global and the
    /// per-provider send limits, so that it waits for a few answers at most.
    private var permitsWaitedFor: Int { max(1, min(settings.maxConcurrentSends, settings.maxSendsPerProvider) / 16) }

    /// Takes the provider's and the global permit when both are free now and nobody waits for them.
    private func takePermitNow(for provider: PushProvider) -> Bool {
        let providerLimit = providerLimits[provider]
        guard (providerLimit?.acquireFree(upTo: 1) ?? 1) == 1 else { return false }
        guard globalLimit.acquireFree(upTo: 1) == 1 else {
            providerLimit?.release()
            return false
        }
        return true
    }

    /// The attempt of a send to `provider` that got no answer (a sender that broke its word, or the group was
    /// cancelled before it went): a failure worth sending again.
    static func unanswered(to provider: PushProvider) -> Attempt {
        Attempt(
            provider: provider, outcome: .retry(status: nil, reason: "no answer from the sender", after: nil),
            sentAtMicros: 0, latencyMillis: 0)
    }
}
