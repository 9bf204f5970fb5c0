import Testing

@testable import Essentials

@Suite struct AsyncBudgetTests {
    @Test func aNewcomerThatWouldFitDoesNotOvertakeAWaiter() async throws {
        let budget = AsyncBudget(limit: 4)
        #expect(try await budget.acquire(3) == 3)
        let big = Task { try await budget.acquire(2) }
        while budget.waitingCount < 1 { await Task.yield() }
        let small = Task { try await budget.acquire(1) }
        while budget.waitingCount < 2 { await Task.yield() }
        #expect(budget.available == 1)
        budget.release(3)
        #expect(try await big.value == 2)
        #expect(try await small.value == 1)
        #expect(budget.available == 1)
    }

    @Test func aRequestBeyondTheBudgetWaitsForEveryUnitAndTakesThemAll() async throws {
        let budget = AsyncBudget(limit: 4)
        #expect(try await budget.acquire(1) == 1)
        let oversized = Task { try await budget.acquire(100) }
        while budget.waitingCount < 1 { await Task.yield() }
        budget.release(1)
        #expect(try await oversized.value == 4)
        #expect(budget.available == 0)
    }

    @Test func aCancelledWaiterFailsAndTheNextOnesMayFitInItsPlace() async throws {
        let budget = AsyncBudget(limit: 4)
        #expect(try await budget.acquire(2) == 2)
        let cancelled = Task { try await budget.acquire(4) }
        while budget.waitingCount < 1 { await Task.yield() }
        let next = Task { try await budget.acquire(2) }
        while budget.waitingCount < 2 { await Task.yield() }
        cancelled.cancel()
        await #expect(throws: AsyncLimiter.Refusal.cancelled) { try await cancelled.value }
        #expect(try await next.value == 2)
        #expect(budget.available == 0)
    }

    @Test func unitsTakenWithoutWaitingAreOwedUntilReleased() async throws {
        let budget = AsyncBudget(limit: 2)
        #expect(try await budget.acquire(2) == 2)
        budget.takeWithoutWaiting(3)
        let waiter = Task { try await budget.acquire(1) }
        while budget.waitingCount < 1 { await Task.yield() }
        budget.release(2)
        #expect(budget.waitingCount == 1)
        budget.release(3)
        #expect(try await waiter.value == 1)
        #expect(try await budget.acquire(0) == 0)
    }
}
