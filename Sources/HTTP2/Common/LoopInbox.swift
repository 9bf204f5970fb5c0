import HTTPTypes
import Synchronization

/// What callers hand an event-loop thread — requests, cancellations, the request to stop — under one lock. The
/// loop takes the whole inbox once per turn, so only the news that finds it empty must wake the loop: every
/// method that can return true means "wake it now".
final class LoopInbox<Request: PendingRequest>: Sendable {
    private struct Contents {
        var submitted: [Request] = []
        var cancelled: [UInt64] = []
        var isStopping = false
        var isStopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []

        /// No news since the loop last took the inbox: the next news must wake it.
        var isEmpty: Bool { submitted.isEmpty && cancelled.isEmpty }
    }

    private let contents = Mutex(Contents())

    /// Takes `requests` (a single one, or a group sent together), or finishes them all with `.cancelled` if the
    /// caller's task is already cancelled (checked under the lock, which closes the race with `cancel(_:)`) or the
    /// loop is stopping; true if the loop must wake.
    func submit(_ requests: some Collection<Request>) -> Bool {
        let outcome: Result<Bool, Refusal> = contents.withLock { contents in
            if contents.isStopping { return .failure(.stopping) }
            if Task.isCancelled { return .failure(.cancelled) }
            let wasEmpty = contents.isEmpty
            contents.submitted.append(contentsOf: requests)
            return .success(wasEmpty)
        }
        switch outcome {
        case .failure(.stopping):
            for request in requests {
                request.finish(.failure(HTTPError(.cancelled, "the HTTP/2 client is shut down")))
            }
            return false
        case .failure(.cancelled):
            for request in requests {
                request.finish(.failure(HTTPError(.cancelled, "request to \(request.origin) cancelled")))
            }
            return false
        case .success(let wakesLoop):
            return wakesLoop
        }
    }

    /// Why `submit` refused requests.
    private enum Refusal: Error {
        case stopping, cancelled
    }

    /// Asks the loop to drop the requests `ids` (one, or a group's) and finish them with `.cancelled`; true if the
    /// loop must wake.
    func cancel(_ ids: some Sequence<UInt64>) -> Bool {
        contents.withLock { contents in
            let wasEmpty = contents.isEmpty
            contents.cancelled.append(contentsOf: ids)
            return wasEmpty
        }
    }

    /// Asks the loop to fail everything with `.cancelled` and exit (the caller wakes it).
    func requestStop() {
        contents.withLock { $0.isStopping = true }
    }

    /// Asks the loop to stop and waits until it has (`wake` wakes it unless it stopped already).
    func stop(waking wake: () -> Void) async {
        await withCheckedContinuation { continuation in
            let stopped = contents.withLock { contents in
                contents.isStopping = true
                if !contents.isStopped { contents.stopWaiters.append(continuation) }
                return contents.isStopped
            }
            if stopped { continuation.resume() } else { wake() }
        }
    }

    /// The news since the last turn (the loop's thread calls it once per turn).
    func take() -> (submitted: [Request], cancelled: [UInt64], isStopping: Bool) {
        contents.withLock { contents in
            defer {
                contents.submitted = []
                contents.cancelled = []
            }
            return (contents.submitted, contents.cancelled, contents.isStopping)
        }
    }

    /// Marks the loop stopped (its thread's last act): requests submitted since its last turn fail with
    /// `.cancelled`, and everyone waiting in `stop` resumes.
    func close() {
        let (left, waiters) = contents.withLock { contents in
            contents.isStopped = true
            defer {
                contents.submitted = []
                contents.stopWaiters = []
            }
            return (contents.submitted, contents.stopWaiters)
        }
        for request in left { request.finish(.failure(HTTPError(.cancelled, "the HTTP/2 client is shut down"))) }
        for waiter in waiters { waiter.resume() }
    }
}
