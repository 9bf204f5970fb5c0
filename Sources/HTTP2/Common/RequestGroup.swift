import Essentials
import HTTPTypes
import Synchronization

/// Requests handed to a transport's loop together (`sendAll`), and the one caller waiting for all of them: each
/// request, when it finishes, gives back its admission permit and is answered at its index, and the last to
/// finish resumes the caller, so a group of N requests costs one continuation, not N.
///
/// `@unchecked Sendable`: `waiter` is written by the caller before its own arrival and read only by the last to
/// arrive; every arrival is an acquiring-and-releasing decrement, so the last one sees that write.
final class RequestGroup: @unchecked Sendable {
    /// What every request's result goes to, with its index in the group.
    typealias Answer = @Sendable (Int, Result<HTTPResponse, HTTPError>) -> Void

    private let answer: Answer
    /// The requests not finished yet, plus one for the caller until it waits.
    private let remaining: Atomic<Int>
    private var waiter: UnsafeContinuation<Void, Never>?
    private let admission: AsyncLimiter

    /// A group of `count` requests, each holding a permit of `admission` once it is handed to the loop.
    init(count: Int, admission: AsyncLimiter, answer: @escaping Answer) {
        remaining = Atomic(count + 1)
        self.admission = admission
        self.answer = answer
    }

    /// Gives back the permit of request `index` and answers it (`PendingRequest.finish`: on the loop's thread, or
    /// the caller's for a submission the inbox refused).
    func finish(_ index: Int, with result: Result<HTTPResponse, HTTPError>) {
        admission.release()
        answer(index, result)
        arrive()
    }

    /// Fails the requests at `indices`, which got no permit (the caller's task was cancelled, or the transport shut
    /// down, while they waited for one).
    func refuse(_ indices: Range<Int>, with error: HTTPError) {
        for index in indices {
            answer(index, .failure(error))
            arrive()
        }
    }

    /// Returns once every request was answered; the caller calls it once, after handing over the last request.
    func wait() async {
        await withUnsafeContinuation { continuation in
            waiter = continuation
            arrive()
        }
    }

    private func arrive() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { waiter?.resume() }
    }
}
