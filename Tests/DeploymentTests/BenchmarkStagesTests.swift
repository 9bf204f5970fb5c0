import Foundation
import IntegrationSupport
import TestSupport
import Testing

/// The benchmark's breakdown of the worker's CPU (`deploy/local/bench_stages.py`): thread kinds by name, a perf
/// sample's stage by its call chain, `perf script` parsing and CPU by thread kind, through its Python unit tests
/// (`deploy/local/bench_stages_test.py`).
@Suite struct BenchmarkStagesTests {
    @Test func threadKindsAndStagesMeetTheirTests() throws {
        let result = try Repository.runTool("python", [Repository.path("deploy/local/bench_stages_test.py").path])
        #expect(result.status == 0, "\(result.output)")
    }
}
