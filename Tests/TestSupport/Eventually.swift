/// Waits until `condition` holds, checking every `interval` (a millisecond by default; longer for a costly condition) of
/// real time for at most `limit`; false if it never did. Callers `#expect` the answer, so a condition that never
/// holds fails the test.
///
/// For the integration layer, where processes and sockets run in real time: a unit test waits for nothing in real
/// time, it settles a `TestExecutor` and drives a `TestClock` (`TestExecutor.advancing`).
///
/// The default limit is long: the whole suite runs on two cores, where CPU-heavy suites of other targets can hold
/// both threads of the cooperative pool for many seconds, and a liveness wait must not turn that into a failure (a
/// condition that never holds still fails, only later).
public func eventually(
    within limit: Duration = .seconds(60), every interval: Duration = .milliseconds(1),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
