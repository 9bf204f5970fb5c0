extension FixedWidthInteger {
    /// `value` rounded down and clamped to the type's range (NaN becomes zero): a conversion that never traps.
    init(clampingRoundedDown value: Double) {
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
}
