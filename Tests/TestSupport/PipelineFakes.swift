import Essentials
import KafkaTypes
import PushCore
import PushPipeline
import Synchronization

/// Virtual time: `sleep` waits until the test (or the fake source, when idle) advances the clock.
public final class TestClock: WallClock {
    private struct Sleeper {
        let deadline: Int64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Int64 = 1_800_000_000_000_000
        var sleepers: [Int: Sleeper] = [:]
        var nextId = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func nowMicros() -> Int64 { state.withLock { $0.now } }

    public func sleep(for duration: Duration) async throws {
        let micros = duration.wholeMilliseconds * 1000
        if micros <= 0 { return await Task.yield() }
        let id = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = Task.isCancelled
                state.withLock { state in
                    state.sleepers[id] = Sleeper(deadline: state.now + micros, continuation: continuation)
                }
                if cancelled { resume(id, throwing: CancellationError()) }
            }
        } onCancel: {
            resume(id, throwing: CancellationError())
        }
    }

    private func resume(_ id: Int, throwing error: (any Error)?) {
        let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
        if let error { sleeper?.continuation.resume(throwing: error) } else { sleeper?.continuation.resume() }
    }

    /// Moves time forward and wakes every sleeper whose deadline passed.
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now += duration.wholeMilliseconds * 1000
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}

/// A consumer over in-memory partitions: paused partitions deliver nothing, stored offsets and
/// pause/resume calls are recorded, and rebalances are played when the test asks.
public final class FakeSource: RecordSource {
    public struct State {
        public var queues: [TopicPartition: [InputRecord]] = [:]
        public var paused: Set<TopicPartition> = []
        public var stored: [TopicPartition: Int64] = [:]
        public var pauseCalls: [[TopicPartition]] = []
        public var resumeCalls: [[TopicPartition]] = []
        public var assigned: Set<TopicPartition> = []
        public var pendingRevoke: [TopicPartition]?
        public var revokeDone = false
        public var commits = 0
        public var closed = false
    }

    public let state = Mutex(State())
    public let clock: TestClock

    public init(clock: TestClock) { self.clock = clock }

    public func add(_ records: [InputRecord]) {
        state.withLock { state in
            for record in records { state.queues[record.topicPartition, default: []].append(record) }
        }
    }

    /// The next poll calls `partitionsRevoking` before returning.
    public func revokeOnNextPoll(_ partitions: [TopicPartition]) {
        state.withLock { $0.pendingRevoke = partitions }
    }

    public var snapshot: State { state.withLock { $0 } }

    public func poll(maxRecords: Int, timeout: Duration, listener: any RebalanceListener) async throws -> [InputRecord]
    {
        // Like a group consumer: a partition is assigned before any of its records arrive.
        let newlyAssigned = state.withLock { state in
            let new = Set(state.queues.keys).subtracting(state.assigned)
            state.assigned.formUnion(new)
            return new.sorted { $0.description < $1.description }
        }
        if !newlyAssigned.isEmpty { await listener.partitionsAssigned(newlyAssigned) }
        if let revoke = state.withLock({ state -> [TopicPartition]? in
            defer { state.pendingRevoke = nil }
            return state.pendingRevoke
        }) {
            await listener.partitionsRevoking(revoke)
            state.withLock { state in
                for partition in revoke {
                    state.queues[partition] = nil
                    state.assigned.remove(partition)
                    state.paused.remove(partition)
                }
                state.revokeDone = true
            }
        }
        let records = state.withLock { state -> [InputRecord] in
            var batch: [InputRecord] = []
            for partition in state.queues.keys.sorted(by: { $0.description < $1.description })
            where !state.paused.contains(partition) {
                let take = min(maxRecords - batch.count, state.queues[partition]?.count ?? 0)
                batch += state.queues[partition]?.prefix(take) ?? []
                state.queues[partition]?.removeFirst(take)
            }
            return batch
        }
        if records.isEmpty {
            clock.advance(by: timeout)
            try await Task.sleep(for: .milliseconds(1))
        }
        return records
    }

    public func storeOffset(_ offset: Int64, for partition: TopicPartition) throws {
        state.withLock { $0.stored[partition] = offset }
    }

    public func pause(_ partitions: [TopicPartition]) throws {
        state.withLock { state in
            state.paused.formUnion(partitions)
            state.pauseCalls.append(partitions)
        }
    }

    public func resume(_ partitions: [TopicPartition]) throws {
        state.withLock { state in
            state.paused.subtract(partitions)
            state.resumeCalls.append(partitions)
        }
    }

    public func commit() async throws { state.withLock { $0.commits += 1 } }

    public func close() async { state.withLock { $0.closed = true } }
}

public struct SinkFailure: Error {}

/// A producer that keeps what it was given; it can fail a number of times first.
public final class FakeSink: RecordSink {
    public struct State {
        public var records: [OutputRecord] = []
        public var failuresLeft = 0
        public var attempts = 0
        public var flushed = false
        /// Values larger than this are refused for good, like Kafka's `message.max.bytes`.
        public var maximumValueBytes = Int.max
        /// Records whose header values add up to more than this are refused for good too.
        public var maximumHeaderBytes = Int.max
        /// Every call fails like a producer with a fatal error.
        public var fatal = false
    }

    public let state = Mutex(State())

    public init() {}

    public func failNext(_ count: Int) { state.withLock { $0.failuresLeft = count } }

    public var records: [OutputRecord] { state.withLock { $0.records } }

    public func records(on topic: String) -> [OutputRecord] { records.filter { $0.topic == topic } }

    public func produce(_ records: [OutputRecord]) async throws {
        try state.withLock { state in
            state.attempts += 1
            if state.failuresLeft > 0 {
                state.failuresLeft -= 1
                throw SinkFailure()
            }
            if state.fatal {
                throw ProduceFailed(reason: "OUT_OF_ORDER_SEQUENCE_NUMBER", message: "fatal", isFatal: true)
            }
            let tooLarge = records.indices.filter {
                records[$0].value.count > state.maximumValueBytes
                    || records[$0].headers.reduce(0, { $0 + $1.value.count }) > state.maximumHeaderBytes
            }
            state.records += records.indices.filter { !tooLarge.contains($0) }.map { records[$0] }
            if !tooLarge.isEmpty { throw OutputRejected(indices: tooLarge, reason: "MSG_SIZE_TOO_LARGE") }
        }
    }

    public func flush(timeout: Duration) async { state.withLock { $0.flushed = true } }
}

/// Events as text: `messageId;device,device,…`. A device named `skip…` is skipped, `old…` expired,
/// `big…` dead-lettered as too large, `unknown…` dead-lettered quoting its name, `f…` goes to FCM and any other to APNs; the request is the name.
/// A value without `;` is undecodable. Narrowing keeps the chosen devices.
public struct FakePlanner: EventPlanner {
    public init() {}

    /// One more than the commas: each device name is followed by one, but the last.
    public func deviceBound(_ value: [UInt8]) -> Int { value.count { $0 == UInt8(ascii: ",") } + 1 }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<String>, UndecodableEvent> {
        let text = String(decoding: value, as: UTF8.self)
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            return .failure(UndecodableEvent(reason: .decodeError, message: "not an event"))
        }
        let messageId = String(parts[0])
        let names = parts[1].split(separator: ",").map(String.init)
        let devices = names.map { name -> PlannedDevice<String> in
            let target = DeviceTarget(
                userId: "u-\(name)", platform: name.hasPrefix("f") ? "fcm" : "apns", token: "token-\(name)",
                tokenHash: "sha256:\(name)")
            let action: DeviceAction<String> =
                if name.hasPrefix("skip") {
                    .skipped(reason: .muted)
                } else if name.hasPrefix("old") {
                    .expired
                } else if name.hasPrefix("big") {
                    .deadLetter(reason: .payloadTooLarge, message: "does not fit")
                } else if name.hasPrefix("unknown") {
                    .deadLetter(reason: .unknownType, message: "no rule for type '\(name)'")
                } else {
                    .send(name.hasPrefix("f") ? .fcm : .apns, "\(messageId)/\(name)")
                }
            return PlannedDevice(target: target, decision: action)
        }
        return .success(
            PlannedEvent(
                messageId: messageId, roomId: "room", type: "text", eventTimeMillis: 1_800_000_000_000,
                devices: devices,
                narrowed: { indices in Array("\(messageId);\(indices.map { names[$0] }.joined(separator: ","))".utf8) })
        )
    }
}

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

/// A provider whose answers are scripted per request (`message/device`); unscripted requests are
/// delivered. Requests named in `held` wait until released. Records the order of sends.
public final class FakeSender: PushSender {
    public struct State {
        public var scripts: [String: [DeliveryOutcome]] = [:]
        public var held: Set<String> = []
        public var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
        public var sent: [String] = []
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
}

/// Retry delays without jitter: `base × attempts`, at least Retry-After.
public struct LinearDelays: RetryDelayPolicy {
    public var base: Duration = .seconds(1)

    public init(base: Duration = .seconds(1)) {
        self.base = base
    }

    public func delay(afterAttempts attempts: Int, retryAfter: Duration?) -> Duration {
        max(retryAfter ?? .zero, base * attempts)
    }
}

public final class RecordingObserver: PipelineObserver {
    public let events = Mutex<[PipelineEvent]>([])

    public init() {}

    public func observe(_ event: PipelineEvent) { events.withLock { $0.append(event) } }

    public var all: [PipelineEvent] { events.withLock { $0 } }
}
