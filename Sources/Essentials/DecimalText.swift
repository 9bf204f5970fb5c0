/// A finite number as short decimal text with at most `fractionDigits` digits after the point and no
/// trailing zeros (`12.5`, `3`, `0.125`); values beyond ±9e15 are clamped, and NaN and infinities are written
/// as `0`. Pure.
public enum DecimalText {
    public static func format(_ value: Double, fractionDigits: Int = 3) -> String {
        let digits = min(max(fractionDigits, 0), 9)
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let limit = 9e15 / Double(scale)
        let clamped = value.isFinite ? min(max(value, -limit), limit) : 0
        let scaled = Int64((abs(clamped) * Double(scale)).rounded())
        let sign = clamped < 0 && scaled != 0 ? "-" : ""
        let whole = String(scaled / scale)
        guard digits > 0 else { return sign + whole }
        var fraction = String(scaled % scale)
        fraction = String(repeating: "0", count: digits - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? sign + whole : "\(sign)\(whole).\(fraction)"
    }
}
