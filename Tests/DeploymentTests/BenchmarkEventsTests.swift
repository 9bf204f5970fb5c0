import Foundation
import IntegrationSupport
import TestSupport
import Testing

/// The benchmark's event shapes (`deploy/local/bench_events.py`: one device per event, APNs and FCM alternating; hot
/// rooms of fixed members) and its CPU figures against the peers (a peer's CPU per 10k requests, the worker's CPU per
/// push over it), through its Python unit tests (`deploy/local/bench_events_test.py`).
@Suite struct BenchmarkEventsTests {
    @Test func eventShapesAndPeerFiguresMeetTheirTests() throws {
        let result = try Repository.runTool("python", [Repository.path("deploy/local/bench_events_test.py").path])
        #expect(result.status == 0, "\(result.output)")
    }
}
