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

    /// An absent send keeps its place: the others' indices and providers stay those they were given.
    @Test func anAbsentSendIsNeverSplitOrTakenAndTheOthersKeepTheirIndices() {
        let sends = PendingSends<String>([PushSend("a", to: .fcm), nil, PushSend("c", to: .webpush)])
        #expect(sends.providers.count == 3)
        #expect(sends.providers[0] == .fcm && sends.providers[2] == .webpush)
        let (together, alone) = sends.split { $0.provider == .webpush }
        #expect(together == [0])
        #expect(alone == [2])
        let taken = sends.take([1, 2])
        #expect(taken.indices == [2])
        #expect(taken.sends.map(\.request) == ["c"])
    }
}
