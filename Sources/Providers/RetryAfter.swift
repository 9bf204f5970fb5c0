import Essentials
import Foundation

/// Parses an HTTP `Retry-After` value (RFC 9110 §10.2.3): delay-seconds or an IMF-fixdate HTTP-date.
enum RetryAfter {
    /// The longest wait a provider can ask for: longer values (up to `9223372036854775807` seconds, or a date
    /// centuries ahead) are cut to this, so that no arithmetic on the wait can overflow and no device waits
    /// for days.
    static let maximum = Duration.seconds(86_400)

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The wait `value` asks for, measured from `now`, at most `maximum`; a date in the past is no wait; `nil`
    /// when unreadable (negative numbers and fractions included).
    static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // Digits only: any number of them is a (possibly huge) wait, never a trap.
            guard let seconds = Int64(trimmed) else { return maximum }
            return min(.seconds(seconds), maximum)
        }
        guard let date = httpDate(trimmed) else { return nil }
        let wait = date.timeIntervalSince(now)
        guard wait > 0 else { return .zero }
        guard wait < maximum.fractionalSeconds else { return maximum }
        return .milliseconds(Int64((wait * 1000).rounded(.up)))
    }

    /// Reads `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].hasSuffix(","), fields[5] == "GMT",
            fields[1].count == 2, fields[1].allSatisfy(\.isASCIIDigit), let day = Int(fields[1]),
            (1...31).contains(day),
            let monthIndex = months.firstIndex(of: String(fields[2])),
            fields[3].count == 4, fields[3].allSatisfy(\.isASCIIDigit), let year = Int(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":").compactMap {
            $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) ? Int($0) : nil
        }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        let days = CivilDate(year: Int64(year), month: Int64(monthIndex + 1), day: Int64(day)).daysSinceEpoch
        let seconds = Int(days) * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
