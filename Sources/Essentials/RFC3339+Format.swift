extension RFC3339 {
    /// `epochMillis` as RFC 3339 in UTC, with milliseconds (`2026-11-29T12:00:00.250Z`) or, when
    /// `withMilliseconds` is false, in whole seconds rounded down (`2026-11-29T12:00:00Z`). Years outside
    /// 0000...9999 are clamped to those bounds, so the text always has the fixed RFC 3339 shape.
    public static func format(epochMillis: Int64, withMilliseconds: Bool = true) -> String {
        String(unsafeUninitializedCapacity: withMilliseconds ? formattedLength : formattedLength - 4) { text in
            format(epochMillis: epochMillis, withMilliseconds: withMilliseconds, into: text)
        }
    }

    /// The length of `format`'s text with milliseconds.
    public static let formattedLength = 24

    /// `format`'s text written into `text`, which has room for `formattedLength` bytes; returns its length.
    public static func format(
        epochMillis: Int64, withMilliseconds: Bool = true, into text: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        let lowest: Int64 = -62_167_219_200_000  // 0000-01-01T00:00:00.000Z
        let highest: Int64 = 253_402_300_799_999  // 9999-12-31T23:59:59.999Z
        let millis = min(max(epochMillis, lowest), highest)
        let (days, millisOfDay) = floorDivision(millis, 86_400_000)
        let date = CivilDate(daysSinceEpoch: days)
        let seconds = millisOfDay / 1000
        var end = 0
        func put(_ value: Int64, _ width: Int, then separator: UInt8) {
            var rest = value
            for index in stride(from: end + width - 1, through: end, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            text[end + width] = separator
            end += width + 1
        }
        put(date.year, 4, then: UInt8(ascii: "-"))
        put(date.month, 2, then: UInt8(ascii: "-"))
        put(date.day, 2, then: UInt8(ascii: "T"))
        put(seconds / 3600, 2, then: UInt8(ascii: ":"))
        put(seconds / 60 % 60, 2, then: UInt8(ascii: ":"))
        if withMilliseconds {
            put(seconds % 60, 2, then: UInt8(ascii: "."))
            put(millisOfDay % 1000, 3, then: UInt8(ascii: "Z"))
        } else {
            put(seconds % 60, 2, then: UInt8(ascii: "Z"))
        }
        return end
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }
}
