import Essentials
import Testing

@Suite struct DecimalTextTests {
    @Test(arguments: [
        (12.5, 3, "12.5"), (3.0, 3, "3"), (0.125, 3, "0.125"), (0.0004, 3, "0"), (1.0105, 3, "1.011"),
        (-2.5, 1, "-2.5"), (-0.0001, 3, "0"), (0.5, 0, "1"), (Double.nan, 3, "0"), (Double.infinity, 3, "0"),
        (1e300, 0, "9000000000000000"),
    ])
    func writesDecimalsWithoutTrailingZeros(value: Double, digits: Int, text: String) {
        #expect(DecimalText.format(value, fractionDigits: digits) == text)
    }
}
