import Foundation
import Testing

@testable import Providers

@Suite struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: [
        ("120", Duration.seconds(120)), (" 0 ", .zero), ("Sun, 06 Nov 1994 08:50:37 GMT", .seconds(60)),
        ("Sun, 06 Nov 1994 08:40:00 GMT", .zero),
    ])
    func parsesSecondsAndDates(value: String, expected: Duration) {
        #expect(RetryAfter.parse(value, now: Self.now) == expected)
    }

    @Test(arguments: ["", "-5", "soon", "Sun, 06 Nov 1994 25:00:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "1.5"])
    func ignoresWhatItCannotRead(value: String) {
        #expect(RetryAfter.parse(value, now: Self.now) == nil)
    }

    /// Hostile values never trap and never ask for more than a day.
    @Test(arguments: [
        ("9223372036854775807", RetryAfter.maximum), ("99999999999999999999999999999999", RetryAfter.maximum),
        ("86401", RetryAfter.maximum), ("86400", Duration.seconds(86_400)),
        ("Fri, 31 Dec 9999 23:59:59 GMT", RetryAfter.maximum), ("Mon, 07 Nov 1994 08:49:37 GMT", .seconds(86_400)),
        ("Sun, 06 Nov 1994 09:49:37 GMT", .seconds(3600)),
    ])
    func hugeWaitsAreCappedAtADay(value: String, expected: Duration) {
        #expect(RetryAfter.parse(value, now: Self.now) == expected)
    }

    @Test(arguments: [
        "-9223372036854775808", "-1", "+5", "0x10", "1e9", "Sun, 06 Nov -994 08:49:37 GMT",
        "Sun, 999 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
    ])
    func hostileValuesAreIgnored(value: String) {
        #expect(RetryAfter.parse(value, now: Self.now) == nil)
    }

    @Test func readsLeapDaysAndCenturies() {
        #expect(RetryAfter.httpDate("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
        #expect(RetryAfter.httpDate("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
    }
}
