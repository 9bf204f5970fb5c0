import Synchronization
import Testing

@testable import Essentials

@Suite struct AsyncLimiterTests {
    @Test func theNextCallerWaitsUntilAPermitIsReleased() async throws {
        let limiter = AsyncLimiter(limit: 1)
        try await limiter.acquire()
        let waiter = Task { await Self.acquired(limiter) }
        while limiter.waitingCount < 1 { await Task.yield() }
        limiter.release()
        #expect(await waiter.value == nil)
        limiter.release()
    }

    /// With one permit, each waiter runs alone, so the order they ran in is the order they were served in.
    @Test(arguments: [1, 3])
    func neverMoreHoldersThanTheLimitAndWaitersAreServedInOrder(limit: Int) async throws {
        let limiter = AsyncLimiter(limit: limit)
        let record = HolderRecord()
        for _ in 0..<limit { try await limiter.acquire() }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    guard (try? await limiter.acquire()) != nil else { return }
                    record.entered(index)
                    await Task.yield()
                    record.left()
                    limiter.release()
                }
                // Each task waits in line before the next one starts.
                while limiter.waitingCount < index + 1 { await Task.yield() }
            }
            for _ in 0..<limit { limiter.release() }
        }
        let (most, order) = record.state.withLock { ($0.most, $0.order) }
        #expect(most <= limit)
        #expect(limit > 1 ? order.sorted() == Array(0..<20) : order == Array(0..<20))
    }

    @Test func aCancelledWaiterFailsAndItsPlaceGoesToTheNext() async throws {
        let limiter = AsyncLimiter(limit: 1)
        try await limiter.acquire()
        let cancelled = Task { await Self.acquired(limiter) }
        while limiter.waitingCount < 1 { await Task.yield() }
        let next = Task { await Self.acquired(limiter) }
        while limiter.waitingCount < 2 { await Task.yield() }
        cancelled.cancel()
        #expect(await cancelled.value == .cancelled)
        limiter.release()
        #expect(await next.value == nil)
        limiter.release()
        #expect(await Self.acquired(limiter) == nil)
    }

    @Test func anAlreadyCancelledTaskIsRefusedOnlyWhenItWouldWait() async throws {
        let limiter = AsyncLimiter(limit: 1)
        let free = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await Self.acquired(limiter)
        }
        #expect(await free.value == nil)
        let full = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await Self.acquired(limiter)
        }
        #expect(await full.value == .cancelled)
    }

    @Test func closingFailsEveryWaiterAndEveryLaterCaller() async throws {
        let limiter = AsyncLimiter(limit: 1)
        try await limiter.acquire()
        let waiters = (0..<3).map { _ in Task { await Self.acquired(limiter) } }
        while limiter.waitingCount < 3 { await Task.yield() }
        limiter.close()
        for waiter in waiters { #expect(await waiter.value == .closed) }
        limiter.release()
        #expect(await Self.acquired(limiter) == .closed)
    }

    /// nil if `acquire()` gave a permit, else why not.
    private static func acquired(_ limiter: AsyncLimiter) async -> AsyncLimiter.Refusal? {
        do {
            try await limiter.acquire()
            return nil
        } catch {
            return error
        }
    }
}

/// Who held a permit, in order, and the most holders at once.
private final class HolderRecord: Sendable {
    let state = Mutex((holders: 0, most: 0, order: [Int]()))

    func entered(_ index: Int) {
        state.withLock { state in
            state.holders += 1
            state.most = max(state.most, state.holders)
            state.order.append(index)
        }
    }

    func left() { state.withLock { $0.holders -= 1 } }
}
