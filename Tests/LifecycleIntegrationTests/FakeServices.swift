import Lifecycle
import Synchronization

/// What the fake services did, in order: `started a`, `stopped a`.
final class Journal: Sendable {
    private let lines = Mutex<[String]>([])

    var entries: [String] { lines.withLock { $0 } }

    func write(_ line: String) { lines.withLock { $0.append(line) } }

    /// Waits (at most 5 s) until `count` lines were written.
    func waitFor(_ count: Int) async {
        for _ in 0..<500 where entries.count < count {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Runs until cancelled, then writes `stopped NAME`.
struct WaitingService: Service {
    let name: String
    let journal: Journal

    func run() async {
        journal.write("started \(name)")
        await Task.waitUntilCancelled()
        journal.write("stopped \(name)")
    }
}

/// Ends on its own once it started: throws `error`, or returns when it is nil.
struct EndingService: Service {
    let name: String
    let journal: Journal
    let error: (any Error)?

    func run() async throws {
        journal.write("started \(name)")
        try await Task.sleep(for: .milliseconds(50))
        if let error { throw error }
    }
}

/// Ignores cancellation: takes a minute to stop whatever happens, then writes `stopped stubborn`.
struct StubbornService: Service {
    let journal: Journal

    func run() async {
        // A task of its own is not cancelled with the caller's.
        await Task { try? await Task.sleep(for: .seconds(60)) }.value
        journal.write("stopped stubborn")
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
