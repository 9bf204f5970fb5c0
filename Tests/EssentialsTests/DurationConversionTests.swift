import Essentials
import Testing

@Suite struct DurationConversionTests {
    @Test(arguments: [
        (Duration.zero, Int64(0), Int64(0)), (.nanoseconds(1), 0, 1), (.microseconds(1_500), 1, 2),
        (.milliseconds(250), 250, 250), (.seconds(3), 3000, 3000), (.nanoseconds(-1_500_000), -1, -1),
        (.milliseconds(-1500), -1500, -1500),
        (.seconds(Int64.max), .max, .max), (.seconds(Int64.min), .min, .min),
        (.seconds(9_223_372_036_854_775), 9_223_372_036_854_775_000, 9_223_372_036_854_775_000),
    ])
    func millisecondsRoundAsNamedAndSaturateInsteadOfTrapping(duration: Duration, whole: Int64, roundedUp: Int64) {
        #expect(duration.wholeMilliseconds == whole)
        #expect(duration.roundedUpMilliseconds == roundedUp)
    }

    @Test(arguments: [
        (Duration.zero, Int64(0)), (.nanoseconds(1), 1), (.microseconds(1_500), 1_500_000),
        (.seconds(3), 3_000_000_000), (.nanoseconds(-7), -7), (.seconds(Int64.max), .max), (.seconds(Int64.min), .min),
    ])
    func nanosecondsSaturateInsteadOfTrapping(duration: Duration, nanoseconds: Int64) {
        #expect(duration.wholeNanoseconds == nanoseconds)
    }

    @Test func fractionalSecondsKeepTheFraction() {
        #expect(Duration.milliseconds(1_250).fractionalSeconds == 1.25)
        #expect(Duration.nanoseconds(-500_000_000).fractionalSeconds == -0.5)
        #expect(Duration.seconds(Int64.max).fractionalSeconds == Double(Int64.max))
    }
}
