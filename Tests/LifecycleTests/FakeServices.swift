import Lifecycle
import Synchronization

/// What the fake services did, in order: `started a`, `stopped a`.
final class Journal: Sendable {
    private let lines = Mutex<[String]>([])

    var entries: [String] { lines.withLock { $0 } }

    func write(_ line: String) { lines.withLock { $0.append(line) } }

    /// Waits until `count` lines were written, at most a minute (a loaded machine can hold the test's threads for
    /// many seconds; a line that never comes still fails the test's expectation).
    func waitFor(_ count: Int) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while entries.count < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Runs until its shutdown is requested, then writes `stopped NAME`.
struct WaitingService: Service {
    let name: String
    let journal: Journal

    func run(shutdown: GracefulShutdown) async {
        journal.write("started \(name)")
        await shutdown.wait()
        journal.write("stopped \(name)")
    }
}

/// Asked to shut down, finishes work that takes `drain` (a sleep that cancellation would cut short), then writes
/// `drained NAME`, or `cancelled NAME` when it was cancelled meanwhile.
struct DrainingService: Service {
    let name: String
    let journal: Journal
    let drain: Duration

    func run(shutdown: GracefulShutdown) async {
        journal.write("started \(name)")
        await shutdown.wait()
        do {
            try await Task.sleep(for: drain)
            journal.write("drained \(name)")
        } catch {
            journal.write("cancelled \(name)")
        }
    }
}

/// Ends on its own once it started: throws `error`, or returns when it is nil.
struct EndingService: Service {
    let name: String
    let journal: Journal
    let error: (any Error)?

    func run(shutdown: GracefulShutdown) async throws {
        journal.write("started \(name)")
        try await Task.sleep(for: .milliseconds(50))
        if let error { throw error }
    }
}

/// Ignores its shutdown request (writes `asked stubborn`) and runs until cancelled, then writes
/// `cancelled stubborn`.
struct StubbornService: Service {
    let journal: Journal

    func run(shutdown: GracefulShutdown) async {
        await shutdown.withHandler {
            while (try? await Task.sleep(for: .seconds(60))) != nil {}
        } onRequest: {
            journal.write("asked stubborn")
        }
        journal.write("cancelled stubborn")
    }
}

/// Signals a test sends by hand.
struct TestSignals {
    let sequence: AsyncStream<UnixSignal>
    let continuation: AsyncStream<UnixSignal>.Continuation

    init() {
        (sequence, continuation) = AsyncStream.makeStream(of: UnixSignal.self)
    }

    func send(_ signal: UnixSignal = .terminate) { continuation.yield(signal) }
}

/// Ends neither when asked nor when cancelled, as a service stuck in a blocking C call would.
struct BlockedService: Service {
    let journal: Journal

    func run(shutdown: GracefulShutdown) async {
        // A task of its own is not cancelled with the caller's.
        await Task { try? await Task.sleep(for: .seconds(60)) }.value
        journal.write("stopped blocked")
    }
}
