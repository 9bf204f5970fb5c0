/// `--max-age`: a duration as operators write it, a whole number and a unit: `90s`, `30m`, `6h`, `2d`. Pure.
public enum AgeLimit {
    /// The duration `text` names, or `nil` when it is not of that form or longer than 100 years.
    public static func parse(_ text: String) -> Duration? {
        guard let unit = text.last, let number = Int64(text.dropLast()), number > 0 else { return nil }
        let seconds: Int64? =
            switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86_400
            default: nil
            }
        guard let seconds, number <= 36_500 * 86_400 / seconds else { return nil }
        return .seconds(number * seconds)
    }
}
