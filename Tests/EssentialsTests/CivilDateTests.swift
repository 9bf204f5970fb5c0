import Essentials
import Testing

@Suite struct CivilDateTests {
    @Test(
        arguments: [
            (0, CivilDate(year: 1970, month: 1, day: 1)), (-1, CivilDate(year: 1969, month: 12, day: 31)),
            (11_016, CivilDate(year: 2000, month: 2, day: 29)), (11_017, CivilDate(year: 2000, month: 3, day: 1)),
            (-719_468, CivilDate(year: 0, month: 3, day: 1)), (2_932_896, CivilDate(year: 9999, month: 12, day: 31)),
        ] as [(Int64, CivilDate)])
    func dayCountsAndDatesConvertBothWays(days: Int64, date: CivilDate) {
        #expect(CivilDate(daysSinceEpoch: days) == date)
        #expect(date.daysSinceEpoch == days)
    }

    @Test(
        arguments: [
            (2024, 2, 29), (2023, 2, 28), (1900, 2, 28), (2000, 2, 29), (2026, 4, 30), (2026, 12, 31),
        ] as [(Int64, Int64, Int64)])
    func monthsHaveTheirGregorianLength(year: Int64, month: Int64, days: Int64) {
        #expect(CivilDate.daysIn(month: month, year: year) == days)
    }
}
