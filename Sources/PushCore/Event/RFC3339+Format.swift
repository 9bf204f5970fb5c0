extension RFC3339 {
    /// `epochMillis` as RFC 3339 in UTC with milliseconds (`2026-11-29T12:00:00.250Z`); years outside
    /// 0000...9999 are clamped to those bounds, so the text always has the fixed RFC 3339 shape.
    public static func format(epochMillis: Int64) -> String {
        let lowest: Int64 = -62_167_219_200_000  // 0000-01-01T00:00:00.000Z
        let highest: Int64 = 253_402_300_799_999  // 9999-12-31T23:59:59.999Z
        let millis = min(max(epochMillis, lowest), highest)
        let (days, millisOfDay) = floorDivision(millis, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let seconds = millisOfDay / 1000
        return digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2) + "T" + digits(seconds / 3600, 2) + ":"
            + digits(seconds / 60 % 60, 2) + ":" + digits(seconds % 60, 2) + "." + digits(millisOfDay % 1000, 3) + "Z"
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }

    /// The civil date of a day count from 1970-01-01, after Howard Hinnant's `civil_from_days`.
    private static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSinceEpoch + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func digits(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
