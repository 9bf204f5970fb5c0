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
        let taken = sends.take([2, 0])
        #expect(taken.indices == [2, 0])
        #expect(taken.sends.map(\.request) == ["c", "a"])
        let again = sends.take([0, 2, 7, -1])
        #expect(again.indices.isEmpty && again.sends.isEmpty)
        #expect(sends.split { _ in false }.together == [1])
    }
}
