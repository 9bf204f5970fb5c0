import PushCore
import Testing

@testable import PushPipeline

@Suite struct PendingSendsTests {
    private static func sends() -> PendingSends<String> {
        PendingSends([PushSend("a", to: .apns), PushSend("b", to: .webpush), PushSend("c", to: .fcm)])
    }

    @Test func aSendIsTakenOnceAndSplitLeavesOutWhatWasTaken() {
        let sends = Self.sends()
        #expect(sends.providers == [.apns, .webpush, .fcm])
        let (together, alone) = sends.split { $0.provider == .webpush }
        #expect(together == [0, 2])
        #expect(alone == [1])
        #expect(sends.take([2, 0]).map(\.send.request) == ["c", "a"])
        #expect(sends.take([0, 2, 7, -1]).isEmpty)
        #expect(sends.split { _ in false }.together == [1])
    }
}
