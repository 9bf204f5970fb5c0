import PushCore
import Testing

/// The one RFC 3339 formatter and the one decimal writer every output (receipts, records, reports) uses.
@Suite struct TextFormatTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"), (1_800_000_000_123, "2027-01-15T08:00:00.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.999Z"),
        (Int64.max, "9999-12-31T23:59:59.999Z"), (Int64.min, "0000-01-01T00:00:00.000Z"),
    ])
    func formatsEpochMillisecondsAsRFC3339WithinFourDigitYears(millis: Int64, text: String) {
        #expect(RFC3339.format(epochMillis: millis) == text)
    }

    @Test func formattedTimesParseBackToTheSameInstant() throws {
        for millis: Int64 in [0, 1, 999, 1_795_953_600_250, -62_135_596_800_000, 253_402_300_799_999] {
            let parsed = try #require(RFC3339.parse(RFC3339.format(epochMillis: millis)))
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == millis)
        }
    }

    @Test(arguments: [
        (12.5, 3, "12.5"), (3.0, 3, "3"), (0.125, 3, "0.125"), (0.0004, 3, "0"), (1.0105, 3, "1.011"),
        (-2.5, 1, "-2.5"), (-0.0001, 3, "0"), (0.5, 0, "1"), (Double.nan, 3, "0"), (Double.infinity, 3, "0"),
        (1e300, 0, "9000000000000000"),
    ])
    func writesDecimalsWithoutTrailingZeros(value: Double, digits: Int, text: String) {
        #expect(DecimalText.format(value, fractionDigits: digits) == text)
    }
}
