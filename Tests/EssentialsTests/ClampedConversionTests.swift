import Essentials
import Testing

@Suite struct ClampedConversionTests {
    @Test(
        arguments: [
            (1.9, 1), (-1.1, -2), (Double.nan, 0), (Double.infinity, Int64.max), (-Double.infinity, Int64.min),
            (1e300, Int64.max), (-1e300, Int64.min), (9.3e18, Int64.max),
        ] as [(Double, Int64)])
    func doublesRoundDownIntoTheRange(value: Double, expected: Int64) {
        #expect(Int64(clampingRoundedDown: value) == expected)
    }

    @Test func additionAndMultiplicationHoldAtTheBounds() {
        #expect(Int64.max.addingClamped(1) == .max)
        #expect(Int64.min.addingClamped(-1) == .min)
        #expect(Int64(5).addingClamped(-7) == -2)
        #expect(Int64.max.multipliedClamped(by: 2) == .max)
        #expect(Int64.min.multipliedClamped(by: 2) == .min)
        #expect(Int64.max.multipliedClamped(by: -2) == .min)
        #expect(Int64.min.multipliedClamped(by: -1) == .max)
        #expect(Int32(-3).multipliedClamped(by: 7) == -21)
    }
}
