/// `@inlinable`: generic over the integer type, they would otherwise run unspecialized (through witness tables)
/// in every module but this one.
extension FixedWidthInteger {
    /// `value` rounded down and clamped to the type's range (NaN becomes zero): a conversion that never traps.
    @inlinable
    public init(clampingRoundedDown value: Double) {
        if value.isNaN {
            self = 0
        } else if value <= Double(Self.min) {
            self = .min
        } else if value >= Double(Self.max) {
            self = .max
        } else {
            self = Self(value.rounded(.down))
        }
    }

    /// `self + other`, held at `min`/`max` instead of overflowing.
    @inlinable
    public func addingClamped(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self × other`, held at `min`/`max` instead of overflowing.
    @inlinable
    public func multipliedClamped(by other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }
}
