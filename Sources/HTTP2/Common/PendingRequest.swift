import HTTPTypes

/// A request a transport accepted, from `send` to its result: what it is, where it goes, by when, and the caller
/// waiting for it. Each transport keeps the state of an attempt in its own subclass (`CurlTransfer`, `NGHTTP2Stream`).
///
/// `@unchecked Sendable`: the sending task hands it to the transport's thread through the locked `LoopInbox` and
/// never touches it again; from then on only that thread reads or writes it (the C libraries' callbacks run there).
class PendingRequest: @unchecked Sendable {
    /// Unchecked (no canary object per send): `finish` resumes it at most once by taking it out, and a transport
    /// finishes every request it accepted, also when it stops.
    typealias Continuation = UnsafeContinuation<Result<HTTPResponse, HTTPError>, Never>

    /// Where the result goes: the one caller waiting for this request (`send`), or its place in a group of
    /// requests sent together (`sendAll`), whose caller waits once for all of them.
    enum Completion {
        case caller(Continuation)
        case member(RequestGroup, index: Int)
    }

    let id: UInt64
    let request: HTTPRequest
    let method: RequestMethod
    let origin: RequestOrigin
    let deadline: ContinuousClock.Instant
    private var completion: Completion?

    init(
        id: UInt64, request: HTTPRequest, method: RequestMethod, origin: RequestOrigin,
        now: ContinuousClock.Instant, completion: Completion
    ) {
        self.id = id
        self.request = request
        self.method = method
        self.origin = origin
        self.deadline = now + request.deadline
        self.completion = completion
    }

    var isFinished: Bool { completion == nil }

    /// True while more than 50 ms are left before the deadline at `now`: time for an attempt (and, for a libcurl
    /// timeout, the sign that it was the connect timeout, not the request's own deadline). A request with less left
    /// is not sent, first or again: it would most likely time out after the server took it, and a push the provider
    /// delivered would then be sent again by whoever retries it.
    func hasTimeLeft(at now: ContinuousClock.Instant) -> Bool { now < deadline - .milliseconds(50) }

    /// Delivers the result to the waiting caller; later calls do nothing. Subclasses also let go of their attempt.
    func finish(_ result: Result<HTTPResponse, HTTPError>) {
        guard let completion else { return }
        self.completion = nil
        switch completion {
        case .caller(let continuation): continuation.resume(returning: result)
        case .member(let group, let index): group.finish(index, with: result)
        }
    }
}
