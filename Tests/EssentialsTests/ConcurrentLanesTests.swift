import Synchronization
import Testing

@testable import Essentials

@Suite struct ConcurrentLanesTests {
    /// How many items run now, and the most that ran at once.
    final class Running: Sendable {
        let state = Mutex((now: 0, most: 0, started: 0))

        func enter() {
            state.withLock { state in
                state.now += 1
                state.started += 1
                state.most = max(state.most, state.now)
            }
        }

        func leave() { state.withLock { $0.now -= 1 } }

        var most: Int { state.withLock { $0.most } }
    }

    @Test(arguments: [1, 3, 20, 50])
    func everyItemRunsOnceWithTheWidthReachedAndNeverExceeded(width: Int) async throws {
        let running = Running()
        let lanes = min(width, 20)
        let outputs = try await inConcurrentLanes(Array(0..<20), width: width) { item in
            running.enter()
            // The first items wait until every lane runs one: a lane missing would keep them waiting.
            var spins = 0
            while item < lanes, running.most < lanes, spins < 100_000 {
                spins += 1
                await Task.yield()
            }
            running.leave()
            return item * 10
        }
        #expect(outputs.sorted() == (0..<20).map { $0 * 10 })
        let (most, started) = running.state.withLock { ($0.most, $0.started) }
        #expect(most == lanes)
        #expect(started == 20)
    }

    @Test func oneLaneIsTheCallingTaskTakingTheItemsInOrder() async throws {
        for width in [1, 0, -5] {
            let outputs = try await inConcurrentLanes(Array(0..<8), width: width) { item in
                await Task.yield()
                return item
            }
            #expect(outputs == Array(0..<8))
        }
        #expect(try await inConcurrentLanes([Int](), width: 4) { $0 }.isEmpty)
    }

    struct Failed: Error {}

    @Test func aFailureStopsEveryLaneFromTakingAnotherItem() async throws {
        let running = Running()
        await #expect(throws: Failed.self) {
            _ = try await inConcurrentLanes(Array(0..<1_000), width: 4) { item in
                running.enter()
                defer { running.leave() }
                await Task.yield()
                if item == 10 { throw Failed() }
                return item
            }
        }
        // Item 10 failed; the lanes running then end their items and stop.
        #expect(running.state.withLock { $0.started } < 20)
    }
}
