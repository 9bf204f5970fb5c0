/// The latency sketch's buckets merged into at most `maximumBins` neighbouring groups, for a histogram
/// chart. Pure.
enum LatencyBins {
    struct Bin: Equatable {
        var lower: Double
        var upper: Double
        var count: UInt64
    }

    static func make(_ sketch: LatencySketch, maximumBins: Int) -> [Bin] {
        let buckets = sketch.histogram
        guard !buckets.isEmpty, maximumBins > 0 else { return [] }
        let perBin = (buckets.count + maximumBins - 1) / maximumBins
        return stride(from: 0, to: buckets.count, by: perBin).map { start in
            let group = buckets[start..<min(start + perBin, buckets.count)]
            return Bin(
                lower: group.first?.lower ?? 0, upper: group.last?.upper ?? 0, count: group.reduce(0) { $0 + $1.count })
        }
    }
}
