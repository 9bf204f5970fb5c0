import Testing

@testable import Essentials

@Suite struct AsyncBudgetTests {
    @Test func aNewcomerThatWouldFitDoesNotOvertakeAWaiter() async throws {
        let budget = AsyncBudget(limit: 4)
        #expect(try await budget.acquire(3) == 3)
        let big = await Self.waiting(budget, for: 2)
        let small = await Self.waiting(budget, for: 1)
        #expect(budget.available == 1)
        #expect(budget.held == 3)
        budget.release(3)
        #expect(try await big.value == 2)
        #expect(try await small.value == 1)
        #expect(budget.available == 1)
        #expect(budget.held == 3)
    }

    @Test func aRequestBeyondTheBudgetWaitsForEveryUnitAndTakesThemAll() async throws {
        let budget = AsyncBudget(limit: 4)
        #expect(try await budget.acquire(1) == 1)
        let oversized = await Self.waiting(budget, for: 100)
        budget.release(1)
        #expect(try await oversized.value == 4)
        #expect(budget.available == 0)
    }

    @Test func aCancelledWaiterFailsAndTheNextOnesMayFitInItsPlace() async throws {
        let budget = AsyncBudget(limit: 4)
        #expect(try await budget.acquire(2) == 2)
        let cancelled = await Self.waiting(budget, for: 4)
        let next = await Self.waiting(budget, for: 2)
        cancelled.cancel()
        await #expect(throws: AsyncBudget.Refusal.cancelled) { try await cancelled.value }
        #expect(try await next.value == 2)
        #expect(budget.available == 0)
    }

    @Test func takingWhatIsFreeNeverWaitsNorOvertakesAWaiter() async throws {
        let budget = AsyncBudget(limit: 4)
        #expect(budget.takeFree(upTo: 3) == 3)
        #expect(budget.takeFree(upTo: 3) == 1)
        #expect(budget.takeFree(upTo: 1) == 0)
        let waiter = await Self.waiting(budget, for: 2)
        budget.release(3)
        #expect(try await waiter.value == 2)
        let second = await Self.waiting(budget, for: 2)
        #expect(budget.available == 1)
        #expect(budget.takeFree(upTo: 1) == 0, "one unit is free, but a waiter is in line")
        budget.release(1)
        #expect(try await second.value == 2)
        #expect(budget.takeFree(upTo: 0) == 0)
        budget.release(4)
        budget.close()
        #expect(budget.takeFree(upTo: 1) == 0)
    }

    @Test func unitsTakenWithoutWaitingAreOwedUntilReleased() async throws {
        let budget = AsyncBudget(limit: 2)
        #expect(try await budget.acquire(2) == 2)
        budget.takeWithoutWaiting(3)
        let waiter = await Self.waiting(budget, for: 1)
        budget.release(2)
        #expect(budget.waitingCount == 1)
        budget.release(3)
        #expect(try await waiter.value == 1)
        #expect(try await budget.acquire(0) == 0)
    }

    @Test func unitsHeldInAScopeComeBackWhenItThrows() async {
        struct Failure: Error {}
        let budget = AsyncBudget(limit: 4)
        await #expect(throws: Failure.self) {
            try await budget.withUnits(3) { grant in
                grant.resize(to: 5)
                #expect(budget.held == 4)
                throw Failure()
            }
        }
        #expect(budget.held == 0)
    }

    @Test func aScopeResizesWhatItHoldsWithoutWaiting() async throws {
        let budget = AsyncBudget(limit: 4)
        try await budget.withUnits(3) { grant in
            grant.resize(to: 1)
            #expect(budget.held == 1)
            grant.resize(to: 0)
            #expect(budget.held == 0)
        }
        #expect(budget.held == 0)
    }

    /// A record bigger than the whole budget stops the others only while it runs, not while it waits.
    @Test func aScopeBeyondTheBudgetTakesItAtOnceAndTheNextOneWaitsForIt() async throws {
        let budget = AsyncBudget(limit: 4)
        #expect(try await budget.acquire(1) == 1)
        let second = try await budget.withUnits(100) { grant in
            #expect(grant.units == 4)
            #expect(budget.available == -1)
            // A second such scope waits in line for every unit, like any other request.
            let second = Task { try await budget.withUnits(50) { $0.units } }
            while budget.waitingCount == 0 { await Task.yield() }
            budget.release(1)
            #expect(budget.waitingCount == 1)
            return second
        }
        #expect(try await second.value == 4)
        #expect(budget.held == 0)
    }

    /// A task acquiring `wanted` units, returned once it waits in line.
    private static func waiting(_ budget: AsyncBudget, for wanted: Int) async -> Task<Int, any Error> {
        let before = budget.waitingCount
        let task = Task { try await budget.acquire(wanted) }
        while budget.waitingCount <= before { await Task.yield() }
        return task
    }
}
