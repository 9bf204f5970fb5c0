import Essentials
import Foundation
import Testing

@Suite struct WallClockTests {
    @Test func theSystemClockReadsTheRealTimeInEveryUnit() {
        let clock = SystemWallClock()
        let before = Date().timeIntervalSince1970
        let micros = clock.nowMicros()
        let millis = clock.nowMillis()
        let date = clock.now().timeIntervalSince1970
        let after = Date().timeIntervalSince1970
        #expect(Double(micros) / 1e6 >= before - 0.001 && Double(micros) / 1e6 <= after + 0.001)
        #expect(millis >= micros / 1000 && Double(millis) / 1e3 <= after + 0.001)
        #expect(date >= Double(micros) / 1e6 && date <= after + 0.001)
    }

    @Test func theDerivedReadingsFollowTheMicroseconds() {
        struct Fixed: WallClock {
            let micros: Int64
            func nowMicros() -> Int64 { micros }
            func sleep(for duration: Duration) async throws {}
        }
        let clock = Fixed(micros: 1_795_953_600_250_999)
        #expect(clock.nowMillis() == 1_795_953_600_250)
        #expect(abs(clock.now().timeIntervalSince1970 - 1_795_953_600.250_999) < 1e-6)
    }
}
