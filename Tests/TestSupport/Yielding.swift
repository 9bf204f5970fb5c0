/// Yields to the other tasks until `condition` holds: a wait in no time of its own, neither real nor virtual
/// (a condition that never holds is ended by the test's time limit).
public func yielding(until condition: () async throws -> Bool) async rethrows {
    while try await !condition() { await Task.yield() }
}
