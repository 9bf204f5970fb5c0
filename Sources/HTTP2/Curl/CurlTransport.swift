import Essentials
public import HTTPTypes
import Synchronization

/// An `HTTPTransport` on libcurl's multi interface: HTTP/2 over TLS (and HTTP/1.1) driven by one event-loop thread
/// per transport, multiplexing many streams over a few connections per origin. `NGHTTP2Transport` is the worker's
/// default; this one carries the origins that speak HTTP/1.1 (cleartext `http://`, or no ALPN h2, as some Web Push
/// services), which `NGHTTP2Transport` hands to it, and is the fallback (`PUSH_HTTP_TRANSPORT=curl`).
///
/// Requests are bounded three times: `maxOutstandingRequests` accepted at once (`send` waits beyond that),
/// `maxConnectionsPerHost × maxStreamsPerConnection` in flight per origin (the rest wait in the transport's own
/// queue, never in libcurl's), and each by its own deadline. A request refused by the server (REFUSED_STREAM) is
/// sent again up to 5 times, from the second refusal in a row after a growing pause (`RefusalBackoff`); one lost
/// with its connection before any response byte (GOAWAY, reset) is sent once more on another connection. A refusal
/// also halves the origin's requests in flight, each response adding one back (`AcceptedStreams`).
public final class CurlTransport: HTTPTransport {
    private let loop: CurlEventLoop
    private let admission: AsyncLimiter
    private let nextID = Atomic<UInt64>(0)

    /// Creates a client and starts its event-loop thread; throws `.tls` if `extraCAFile` or the client certificate
    /// files cannot be read.
    public init(configuration: HTTP2TransportConfiguration = HTTP2TransportConfiguration()) throws(HTTPError) {
        loop = try CurlEventLoop(configuration: configuration)
        admission = AsyncLimiter(limit: configuration.maxOutstandingRequests)
        loop.start()
    }

    deinit {
        admission.close()
        loop.requestStop()
    }

    /// The combined CA bundle written for `extraCAFile`, if any; removed by `shutdown()`.
    var combinedCAFile: String? { loop.combinedCAFile }

    /// Sends `request` and returns the complete response, whatever its status; throws `HTTPError` when there is
    /// none. Cancelling the calling task removes the request (resetting its stream if it is in flight).
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let (origin, method) = try request.validated()
        try await admission.admit()
        defer { admission.release() }
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        return try await loop.exchange(id: id) { completion in
            CurlTransfer(
                id: id, request: request, method: method, origin: origin, now: .now, completion: completion)
        }.get()
    }

    /// Sends every request at the same time, as `send` would one by one, and answers each as it finishes (on the
    /// event-loop thread): they go to the loop as one group (`RequestLoop.exchangeAll`: one wake-up for what is
    /// admitted at once, one wait for all), each still with its own deadline and resends. Cancelling the calling
    /// task cancels them all.
    public func sendAll(
        _ requests: [HTTPRequest], answer: @escaping @Sendable (Int, Result<HTTPResponse, HTTPError>) -> Void
    ) async {
        let transfers = GroupedRequest.checked(requests, answering: answer)
        await loop.exchangeAll(
            transfers, firstID: nextID.reserve(transfers.count), admission: admission, answer: answer
        ) { id, transfer, completion in
            CurlTransfer(
                id: id, request: requests[transfer.index], method: transfer.method, origin: transfer.origin,
                now: .now, completion: completion)
        }
    }

    /// How long ago the event-loop thread last started a turn (it turns at least once a second while it runs).
    public var timeSinceLastTurn: Duration { loop.timeSinceLastTurn }

    /// The CPU time the event-loop thread has used (user and system) since it started.
    public var threadCPUTime: Duration { loop.cpu.elapsed }

    /// Connections opened and requests sent again since the transport started.
    public var counts: HTTP2TransportCounts { loop.counters.counts }

    /// Fails every queued and in-flight request with `.cancelled`, closes the connections and stops the
    /// event-loop thread; later `send` calls fail with `.cancelled`.
    public func shutdown() async {
        admission.close()
        await loop.stop()
    }
}
