import ReceiptAnalytics
import TestSupport
import Testing

@Suite struct LatencySketchTests {
    /// ClickHouse's `quantileExact`: the value at index ⌊q·n⌋ (at most n − 1) of the sorted values.
    func exactQuantile(_ sorted: [Double], _ q: Double) -> Double {
        sorted[min(Int((q * Double(sorted.count)).rounded(.down)), sorted.count - 1)]
    }

    @Test(arguments: [1, 2, 7, 100, 10_000])
    func everyQuantileIsWithinOnePercentOfTheExactValue(count: Int) throws {
        var random = SeededGenerator(seed: UInt64(count))
        // Latencies spread over six orders of magnitude, as a log-normal-ish mix.
        let values = (0..<count).map { _ in
            Double.random(in: 0.01...10_000, using: &random) / Double.random(in: 1...100, using: &random)
        }
        var sketch = LatencySketch()
        for value in values { sketch.add(value) }
        let sorted = values.sorted()
        for q in [0.0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0] {
            let estimate = try #require(sketch.quantile(q))
            let exact = exactQuantile(sorted, q)
            #expect(
                abs(estimate - exact) <= exact * LatencySketch.relativeAccuracy + 1e-12,
                "q \(q): \(estimate) vs \(exact)")
        }
        #expect(sketch.count == UInt64(count))
        #expect(sketch.minimum == sorted.first)
        #expect(sketch.maximum == sorted.last)
    }

    @Test func mergingSketchesEqualsAddingEveryValueToOne() {
        var random = SeededGenerator(seed: 42)
        let values = (0..<1000).map { _ in Double.random(in: 0.1...5000, using: &random) }
        var whole = LatencySketch()
        var first = LatencySketch()
        var second = LatencySketch()
        for (index, value) in values.enumerated() {
            whole.add(value)
            if index % 3 == 0 { first.add(value) } else { second.add(value) }
        }
        first.merge(second)
        #expect(first == whole)
    }

    @Test func hostileValuesStayBounded() {
        var sketch = LatencySketch()
        for value in [Double.nan, -5, 0, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude] {
            sketch.add(value)
        }
        #expect(sketch.count == 6)
        #expect(sketch.minimum == LatencySketch.minimumValue)
        #expect(sketch.maximum == LatencySketch.maximumValue)
        #expect(sketch.buckets.count == 2)
        #expect(LatencySketch().quantile(0.5) == nil)
    }
}
