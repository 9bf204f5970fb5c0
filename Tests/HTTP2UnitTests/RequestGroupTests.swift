import Essentials
import HTTPTypes
import Synchronization
import Testing

@testable import HTTP2

/// A group of requests sent together: one wait for all their results, in order, each request's permit given back
/// as it finishes; handed to the loop's inbox in one submission.
@Suite struct RequestGroupTests {
    static func requests(_ count: Int, of group: RequestGroup) throws -> [PendingRequest] {
        let request = HTTPRequest(method: "GET", url: "https://push.example/3/device/abc", deadline: .seconds(5))
        let (origin, method) = try request.validated()
        return (0..<count).map { index in
            PendingRequest(
                id: UInt64(index + 1), request: request, method: method, origin: origin, now: .now,
                completion: .member(group, index: index))
        }
    }

    /// The answers of a group, by index, as they came.
    final class Answers: Sendable {
        typealias Answer = (index: Int, status: Int?, error: HTTPError?)
        private let answered = Mutex<[Answer]>([])

        func answer(_ index: Int, _ result: Result<HTTPResponse, HTTPError>) {
            let answer: Answer =
                switch result {
                case .success(let response): (index, response.status, nil)
                case .failure(let error): (index, nil, error)
                }
            answered.withLock { $0.append(answer) }
        }

        /// Each answer, in the order they came.
        var all: [Answer] { answered.withLock { $0 } }
    }

    @Test func eachRequestIsAnsweredAsItFinishesGivesBackItsPermitAndTheLastResumesTheCaller() async throws {
        let admission = AsyncLimiter(limit: 3)
        #expect(admission.acquireFree(upTo: 3) == 3)
        let answers = Answers()
        let group = RequestGroup(count: 3, admission: admission, answer: answers.answer)
        let requests = try Self.requests(3, of: group)
        requests[2].finish(.success(HTTPResponse(status: 202)))
        requests[0].finish(.failure(HTTPError(.timeout, "deadline passed")))
        requests[0].finish(.success(HTTPResponse(status: 200)))  // a request finishes once
        #expect(answers.all.map(\.index) == [2, 0])
        #expect(admission.acquireFree(upTo: 3) == 2)
        admission.release()
        admission.release()
        let waiting = Task { await group.wait() }
        requests[1].finish(.success(HTTPResponse(status: 201)))
        await waiting.value
        #expect(answers.all.map(\.index) == [2, 0, 1])
        #expect(answers.all.map(\.status) == [202, nil, 201])
        #expect(answers.all[1].error?.kind == .timeout)
        #expect(requests.allSatisfy { $0.isFinished })
        #expect(admission.acquireFree(upTo: 4) == 3)
    }

    @Test func requestsRefusedBeforeTheyGotAPermitAreAnsweredWithoutGivingOneBack() async throws {
        let admission = AsyncLimiter(limit: 4)
        #expect(admission.acquireFree(upTo: 2) == 2)
        let answers = Answers()
        let group = RequestGroup(count: 4, admission: admission, answer: answers.answer)
        let requests = try Self.requests(2, of: group)
        requests[1].finish(.success(HTTPResponse(status: 200)))
        group.refuse(2..<4, with: HTTPError(.cancelled, "cancelled while waiting for room"))
        requests[0].finish(.success(HTTPResponse(status: 200)))
        await group.wait()
        #expect(answers.all.map(\.index) == [1, 2, 3, 0])
        #expect(answers.all.map(\.status) == [200, nil, nil, 200])
        #expect(admission.acquireFree(upTo: 5) == 4)
    }

    @Test func aGroupWakesTheLoopOnceAndAfterTheLoopTookItTheNextNewsWakesItAgain() throws {
        let inbox = LoopInbox<PendingRequest>()
        let group = RequestGroup(count: 5, admission: AsyncLimiter(limit: 5)) { _, _ in }
        let requests = try Self.requests(5, of: group)
        #expect(inbox.submit(requests.prefix(3)))
        #expect(!inbox.submit(requests.suffix(2)))
        #expect(!inbox.cancel([2, 3]))
        let taken = inbox.take()
        #expect(taken.submitted.map(\.id) == [1, 2, 3, 4, 5])
        #expect(taken.cancelled == [2, 3])
        #expect(inbox.cancel(UInt64(4)..<6))
        #expect(inbox.take().cancelled == [4, 5])
    }

    @Test func aGroupSubmittedFromACancelledTaskIsFinishedWithCancelledAtOnce() async throws {
        let admission = AsyncLimiter(limit: 3)
        #expect(admission.acquireFree(upTo: 3) == 3)
        let inbox = LoopInbox<PendingRequest>()
        let answers = Answers()
        let group = RequestGroup(count: 3, admission: admission, answer: answers.answer)
        let requests = try Self.requests(3, of: group)
        let wakes = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return inbox.submit(requests)
        }.value
        #expect(!wakes)
        #expect(inbox.take().submitted.isEmpty)
        await group.wait()
        #expect(answers.all.map(\.index) == [0, 1, 2])
        #expect(answers.all.allSatisfy { $0.error?.message == "request to https://push.example cancelled" })
        #expect(admission.acquireFree(upTo: 3) == 3)
    }
}
