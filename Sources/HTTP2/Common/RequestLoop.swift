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
    /// Hands `request` to the loop (`LoopInbox.submit`). Only the submission that finds the inbox empty wakes the
    /// loop: the loop takes the whole inbox in one turn, so a burst of sends costs one wake-up and one loop turn,
    /// not one each, and more requests go out in each write.
    func submit(_ request: Request) {
        if inbox.submit(request) { wake() }
    }

    /// Asks the loop to drop request `id` (waiting or in flight) and finish it with `.cancelled`.
    func cancel(_ id: UInt64) {
        if inbox.cancel(id) { wake() }
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
        id: UInt64, _ make: (PendingRequest.Continuation) -> Request
    ) async -> Result<HTTPResponse, HTTPError> {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in submit(make(continuation)) }
        } onCancel: {
            cancel(id)
        }
    }
}
