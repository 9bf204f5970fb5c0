/// A counting semaphore for async code: at most `limit` holders at once, waiters served in FIFO order — an
/// `AsyncBudget` taken one unit at a time.
///
/// `release()` hands its permit straight to the longest waiter, so a newcomer never overtakes one. A waiter
/// fails with `.cancelled` when its task is cancelled and with `.closed` when the limiter is closed; after
/// `close()` every `acquire()` fails. Taking a free permit and returning one without waiters lock once and
/// allocate nothing.
public final class AsyncLimiter: Sendable {
    /// Why `acquire()` gave no permit.
    public typealias Refusal = AsyncBudget.Refusal

    private let permits: AsyncBudget

    /// A limiter of `limit` permits (at least one).
    public init(limit: Int) {
        permits = AsyncBudget(limit: limit)
    }

    /// Takes a permit, waiting in line while none is free; throws if the task is cancelled or the limiter
    /// closed before one was handed over. Every successful `acquire()` needs one `release()`.
    public func acquire() async throws(Refusal) {
        _ = try await permits.acquire(1)
    }

    /// Takes `count` permits (at most the limit) at once, waiting in line until they are free; throws as `acquire()`
    /// does. Each needs one `release()`, or `release(count)` for all.
    public func acquire(_ count: Int) async throws(Refusal) {
        _ = try await permits.acquire(count)
    }

    /// Returns `count` permits.
    public func release(_ count: Int) {
        permits.release(count)
    }

    /// Takes up to `wanted` permits that are free now, without waiting and without overtaking a waiter; returns
    /// how many (none while someone waits or after `close()`). Each needs one `release()`.
    public func acquireFree(upTo wanted: Int) -> Int {
        permits.takeFree(upTo: wanted)
    }

    /// Returns a permit, handing it straight to the longest waiter if there is one.
    public func release() {
        permits.release(1)
    }

    /// Fails every waiter and every later `acquire()` with `.closed`.
    public func close() {
        permits.close()
    }

    /// How many tasks wait for a permit now (for tests).
    var waitingCount: Int { permits.waitingCount }
}
