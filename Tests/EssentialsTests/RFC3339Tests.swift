import Essentials
import Foundation
import Testing

/// The one RFC 3339 parser and formatter every input and output (events, receipts, logs, reports) uses.
@Suite struct RFC3339Tests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"), (1_800_000_000_123, "2027-01-15T08:00:00.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.999Z"),
        (4_107_542_399_000, "2100-02-28T23:59:59.000Z"),
        (Int64.max, "9999-12-31T23:59:59.999Z"), (Int64.min, "0000-01-01T00:00:00.000Z"),
    ])
    func formatsEpochMillisecondsAsRFC3339WithinFourDigitYears(millis: Int64, text: String) {
        #expect(RFC3339.format(epochMillis: millis) == text)
    }

    @Test(arguments: [
        (Int64(1_795_953_600_999), "2026-11-29T12:00:00Z"), (-1, "1969-12-31T23:59:59Z"), (0, "1970-01-01T00:00:00Z"),
    ])
    func formatsWholeSecondsRoundedDown(millis: Int64, text: String) {
        #expect(RFC3339.format(epochMillis: millis, withMilliseconds: false) == text)
    }

    @Test func formattedTimesParseBackToTheSameInstant() throws {
        for millis: Int64 in [0, 1, 999, 1_795_953_600_250, -62_135_596_800_000, 253_402_300_799_999] {
            let parsed = try #require(RFC3339.parse(RFC3339.format(epochMillis: millis)))
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == millis)
        }
    }

    @Test func everyDayOfFourHundredYearsFormatsAndParsesBack() throws {
        // One Gregorian cycle, 1900-03-01 to 2300-03-01: every leap rule, and dates before 1970.
        let first: Int64 = -2_203_891_200_000
        for day in Int64(0)..<146_097 {
            let millis = first + day * 86_400_000
            let parsed = try #require(RFC3339.parse(RFC3339.format(epochMillis: millis)))
            #expect(Int64(parsed.timeIntervalSince1970 * 1000) == millis)
        }
    }

    @Test(arguments: [
        ("2026-11-29T12:00:00Z", 1_795_953_600.0), ("2026-11-29t12:00:00z", 1_795_953_600),
        ("2026-11-29 12:00:00Z", 1_795_953_600), ("2026-11-29T21:00:00.250+09:00", 1_795_953_600.25),
        ("2026-11-29T11:30:00-00:30", 1_795_953_600), ("2024-02-29T00:00:00Z", 1_709_164_800),
    ])
    func parsesOffsetsFractionsAndTheAllowedSeparators(text: String, seconds: Double) throws {
        let date = try #require(RFC3339.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: [
        "2026-11-29", "2026-11-29T12:00:00", "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-11-31T00:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T12:60:00Z", "2026-11-29T12:00:00.Z",
        "2026-11-29T12:00:00+9:00", "2026-11-29T12:00:00+09:00 ", "2026-11-29X12:00:00Z", "２０２６-11-29T12:00:00Z",
    ])
    func rejectsWhatIsNotAnRFC3339DateTime(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }
}
