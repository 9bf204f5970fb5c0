import Essentials
import HTTPTypes

/// An event-loop thread that carries `PendingRequest`s to their results: what `CurlTransport` and `NGHTTP2Transport`
/// share of handing requests to their loop and waiting for them.
protocol RequestLoop: AnyObject, Sendable {
    associatedtype Request: PendingRequest
    /// Where callers leave requests, cancellations and the request to stop; the loop takes it whole each turn.
    var inbox: LoopInbox<Request> { get }
    /// Interrupts the loop's wait; safe from any thread.
    func wake()
}

extension RequestLoop {
    /// Hands `requests` (one, or a group's) to the loop (`LoopInbox.submit`). Only the submission that finds the
    /// inbox empty wakes the loop: the loop takes the whole inbox in one turn, so a burst of sends costs one wake-up
    /// and one loop turn, not one each, and more requests go out in each write.
    func submit(_ requests: some Collection<Request>) {
        if inbox.submit(requests) { wake() }
    }

    /// Asks the loop to drop the requests `ids` (waiting or in flight) and finish them with `.cancelled`.
    func cancel(_ ids: some Sequence<UInt64>) {
        if inbox.cancel(ids) { wake() }
    }

    /// Asks the loop to fail everything with `.cancelled` and exit; returns at once.
    func requestStop() {
        inbox.requestStop()
        wake()
    }

    /// Stops the loop and waits until its thread has released every request.
    func stop() async {
        await inbox.stop { wake() }
    }

    /// Submits the request `make` builds around the caller's continuation and waits for its result; cancelling the
    /// calling task cancels request `id` (resetting its stream if it is in flight).
    func exchange(
        id: UInt64, _ make: (PendingRequest.Completion) -> Request
    ) async -> Result<HTTPResponse, HTTPError> {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in submit(CollectionOfOne(make(.caller(continuation)))) }
        } onCancel: {
            cancel(CollectionOfOne(id))
        }
    }

    /// Hands `requests` to the loop as a group and returns once every one was answered: `answer` gets each one's
    /// result with its `index` as it finishes (on the loop's thread), and the caller waits once for all.
    /// `make(id, request, completion)` builds each, the ids counting up from `firstID`. Each request takes a permit
    /// of `admission`, given back when it finishes: the group goes in chunks of what is free
    /// (`AsyncLimiter.admit(upTo:)`), each chunk in one submission (one wake-up at most), and the caller waits for
    /// room only while none is free. Cancelling the calling task cancels every request of the group; those that
    /// got no permit yet fail with `.cancelled` at once.
    func exchangeAll(
        _ requests: [GroupedRequest], firstID: UInt64, admission: AsyncLimiter,
        answer: @escaping @Sendable (Int, Result<HTTPResponse, HTTPError>) -> Void,
        _ make: (UInt64, GroupedRequest, PendingRequest.Completion) -> Request
    ) async {
        let count = requests.count
        guard count > 0 else { return }
        let group = RequestGroup(count: count, admission: admission) { slot, result in
            answer(requests[slot].index, result)
        }
        await withTaskCancellationHandler {
            var next = 0
            while next < count {
                let admitted: Int
                do throws(HTTPError) {
                    admitted = try await admission.admit(upTo: count - next)
                } catch {
                    group.refuse(next..<count, with: error)
                    break
                }
                submit(
                    (next..<next + admitted).map { slot in
                        make(firstID &+ UInt64(slot), requests[slot], .member(group, index: slot))
                    })
                next += admitted
            }
            await group.wait()
        } onCancel: {
            cancel((0..<UInt64(count)).lazy.map { firstID &+ $0 })
        }
    }
}
