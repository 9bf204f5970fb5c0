import Foundation
import IntegrationSupport
import TestSupport
import Testing

/// The benchmark's count of the Swift runtime's calls per record (`deploy/local/bench_runtime_events.py`): `perf
/// script` lines by probe and thread kind, task switches by resume function and target, symbols from a memory map,
/// the printed figures and A/B ratios, through its Python unit tests (`deploy/local/bench_runtime_events_test.py`).
@Suite struct BenchmarkRuntimeEventsTests {
    @Test func runtimeEventCountsMeetTheirTests() throws {
        let result = try Repository.runTool(
            "python", [Repository.path("deploy/local/bench_runtime_events_test.py").path])
        #expect(result.status == 0, "\(result.output)")
    }
}
