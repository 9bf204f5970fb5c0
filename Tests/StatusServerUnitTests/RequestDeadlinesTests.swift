import Testing

@testable import StatusServer

@Suite struct RequestDeadlinesTests {
    @Test func aRequestStillReadingAtTheDeadlineIsClosedHoweverRecentItsLastByte() {
        var deadlines = RequestDeadlines(deadline: .seconds(10), limit: 100)
        _ = deadlines.opened(1, at: .seconds(0))
        _ = deadlines.opened(2, at: .seconds(3))
        #expect(deadlines.overdue(at: .milliseconds(9_999)).isEmpty)
        #expect(deadlines.overdue(at: .seconds(10)) == [1])
        // Chosen once only.
        #expect(deadlines.overdue(at: .seconds(13)) == [2])
        #expect(deadlines.overdue(at: .seconds(60)).isEmpty)
    }

    @Test func aRequestBeingAnsweredIsNeverClosedAndTheNextOneGetsAFullDeadline() {
        var deadlines = RequestDeadlines(deadline: .seconds(10), limit: 100)
        _ = deadlines.opened(1, at: .seconds(0))
        deadlines.read(1)
        #expect(deadlines.overdue(at: .seconds(100)).isEmpty)
        deadlines.ended(1, at: .seconds(100))
        #expect(deadlines.overdue(at: .seconds(109)).isEmpty)
        #expect(deadlines.overdue(at: .seconds(110)) == [1])
    }

    @Test func aNewConnectionBeyondTheLimitClosesTheOneReadingLongest() {
        var deadlines = RequestDeadlines(deadline: .seconds(10), limit: 3)
        #expect(deadlines.opened(1, at: .seconds(1)) == nil)
        #expect(deadlines.opened(2, at: .seconds(2)) == nil)
        #expect(deadlines.opened(3, at: .seconds(3)) == nil)
        deadlines.read(1)
        // 1 is being answered: 2 has been reading longest.
        #expect(deadlines.opened(4, at: .seconds(4)) == 2)
        #expect(deadlines.stages[2] == .closing)
        // 2 no longer counts, so 5 closes 3, not 2 again.
        #expect(deadlines.opened(5, at: .seconds(5)) == 3)
        deadlines.closed(2)
        deadlines.closed(3)
        #expect(deadlines.counted == 3)
        #expect(deadlines.opened(6, at: .seconds(6)) == 4)
    }

    @Test func withEveryConnectionBeingAnsweredANewOneClosesNone() {
        var deadlines = RequestDeadlines(deadline: .seconds(10), limit: 2)
        for id in 1...2 {
            _ = deadlines.opened(id, at: .seconds(Int64(id)))
            deadlines.read(id)
        }
        #expect(deadlines.opened(3, at: .seconds(3)) == nil)
        #expect(deadlines.counted == 3)
    }

    @Test func anEndOrReadAfterTheChoiceToCloseChangesNothing() {
        var deadlines = RequestDeadlines(deadline: .seconds(1), limit: 10)
        _ = deadlines.opened(1, at: .zero)
        #expect(deadlines.overdue(at: .seconds(1)) == [1])
        deadlines.read(1)
        deadlines.ended(1, at: .seconds(2))
        #expect(deadlines.stages[1] == .closing)
        deadlines.closed(1)
        deadlines.closed(1)
        #expect(deadlines.stages.isEmpty)
        #expect(deadlines.counted == 0)
    }

    @Test func oneThousandSlowConnectionsLeaveRoomForEachNewOne() {
        var deadlines = RequestDeadlines(deadline: .seconds(10), limit: 1_000)
        for id in 1...1_000 { #expect(deadlines.opened(id, at: .milliseconds(Int64(id))) == nil) }
        // Each new connection closes the oldest slow one, in order.
        for id in 1_001...1_100 {
            #expect(deadlines.opened(id, at: .seconds(2)) == id - 1_000)
            deadlines.read(id)
        }
        #expect(deadlines.counted == 1_000)
    }
}
