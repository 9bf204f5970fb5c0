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
        let negative = clamped < 0 && scaled != 0
        var fraction = scaled % scale
        var fractionWidth = digits
        while fractionWidth > 0, fraction % 10 == 0 {
            fraction /= 10
            fractionWidth -= 1
        }
        // At most a sign, 16 whole digits, a point and 9 fraction digits, written into a buffer on the stack: a
        // string asked for 27 bytes of room would allocate them, where a text of 15 bytes or fewer (a latency, a
        // rate) fits in a small string, which allocates nothing.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 27) { text in
            var end = 0
            if negative {
                text[0] = UInt8(ascii: "-")
                end = 1
            }
            var whole = scaled / scale
            var wholeWidth = 1
            while whole >= 10 {
                whole /= 10
                wholeWidth += 1
            }
            whole = scaled / scale
            for index in stride(from: end + wholeWidth - 1, through: end, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(whole % 10)
                whole /= 10
            }
            end += wholeWidth
            if fractionWidth > 0 {
                text[end] = UInt8(ascii: ".")
                end += 1
                for index in stride(from: end + fractionWidth - 1, through: end, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
                    fraction /= 10
                }
                end += fractionWidth
            }
            return String(decoding: UnsafeBufferPointer(rebasing: text[..<end]), as: UTF8.self)
        }
    }
}
