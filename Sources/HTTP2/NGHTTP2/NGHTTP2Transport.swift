import Essentials
public import HTTPTypes
import Synchronization

/// An `HTTPTransport` on nghttp2 and OpenSSL directly: HTTP/2 over TLS driven by one event-loop thread, with
/// the frames of a loop turn written to each connection in one batch. The same bounds and guarantees as
/// `CurlTransport` (which it is chosen over by `PUSH_HTTP_TRANSPORT=nghttp2`): `maxOutstandingRequests` accepted at
/// once, the per-origin connection and stream bounds (and the server's own stream limit), each request's
/// deadline, and cancellation resetting the stream. A request the server refused (REFUSED_STREAM, GOAWAY) goes
/// again up to 5 times, one lost with its connection before any response byte once (`ResendAllowance`).
///
/// Cleartext `http://` origins, and servers that choose HTTP/1.1 in ALPN, are served by a `CurlTransport` made
/// on first need: APNs and FCM speak HTTP/2, so HTTP/1.1 is left to libcurl.
public final class NGHTTP2Transport: HTTPTransport {
    private let configuration: HTTP2TransportConfiguration
    private let loop: NGHTTP2EventLoop
    private let admission: AsyncLimiter
    private let nextID = Atomic<UInt64>(0)
    /// The libcurl client for HTTP/1.1 origins, once one was needed; and the TLS origins that chose HTTP/1.1.
    private let fallback = Mutex<(client: CurlTransport?, http1Origins: Set<RequestOrigin>, isShutDown: Bool)>(
        (nil, [], false))

    /// Creates a transport and starts its thread; throws `.tls` if `extraCAFile` or the client certificate
    /// files cannot be read.
    public init(configuration: HTTP2TransportConfiguration = HTTP2TransportConfiguration()) throws(HTTPError) {
        self.configuration = configuration
        loop = try NGHTTP2EventLoop(configuration: configuration)
        admission = AsyncLimiter(limit: configuration.maxOutstandingRequests)
        loop.start()
    }

    deinit {
        admission.close()
        loop.requestStop()
    }

    /// Sends `request` and returns the complete response, whatever its status; throws `HTTPError` when there is
    /// none. Cancelling the calling task removes the request (resetting its stream if it is in flight).
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let (origin, method) = try request.validated()
        if !origin.isTLS || fallback.withLock({ $0.http1Origins.contains(origin) }) {
            return try await http1Client().send(request)
        }
        try await admission.admit()
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let result = await loop.exchange(id: id) { completion in
            NGHTTP2Stream(
                id: id, request: request, method: method, origin: origin, now: .now, completion: completion)
        }
        admission.release()
        if case .failure(.speaksHTTP1) = result {
            fallback.withLock { _ = $0.http1Origins.insert(origin) }
            return try await http1Client().send(request)
        }
        return try result.get()
    }

    /// Sends every request at the same time, as `send` would one by one, and answers each as it finishes (on the
    /// event-loop thread): the HTTP/2 requests go to the loop as one group (`RequestLoop.exchangeAll`: one wake-up
    /// for what is admitted at once, one wait for all), each still with its own deadline, resends and per-origin
    /// bounds. Requests for HTTP/1.1 origins go through the libcurl client, after the others. Cancelling the calling
    /// task cancels them all.
    public func sendAll(
        _ requests: [HTTPRequest], answer: @escaping @Sendable (Int, Result<HTTPResponse, HTTPError>) -> Void
    ) async {
        let checked = GroupedRequest.checked(requests, answering: answer)
        let http1Origins = fallback.withLock { $0.http1Origins }
        let streams = checked.filter { $0.origin.isTLS && !http1Origins.contains($0.origin) }
        let http1 = Mutex(checked.filter { !$0.origin.isTLS || http1Origins.contains($0.origin) }.map(\.index))
        await loop.exchangeAll(
            streams, firstID: nextID.reserve(streams.count), admission: admission,
            answer: { index, result in
                // An origin that chose HTTP/1.1 in ALPN: its requests go again through libcurl, as `send`'s do.
                guard case .failure(.speaksHTTP1) = result else { return answer(index, result) }
                http1.withLock { $0.append(index) }
            }
        ) { id, stream, completion in
            NGHTTP2Stream(
                id: id, request: requests[stream.index], method: stream.method, origin: stream.origin, now: .now,
                completion: completion)
        }
        let viaHTTP1 = http1.withLock { $0 }
        guard !viaHTTP1.isEmpty else { return }
        let fellBack = Set(viaHTTP1)
        fallback.withLock { state in
            for stream in streams where fellBack.contains(stream.index) { state.http1Origins.insert(stream.origin) }
        }
        do throws(HTTPError) {
            try await http1Client().sendAll(viaHTTP1.map { requests[$0] }) { slot, result in
                answer(viaHTTP1[slot], result)
            }
        } catch {
            for index in viaHTTP1 { answer(index, .failure(error)) }
        }
    }

    /// The libcurl client for HTTP/1.1, made on first need with the same configuration.
    private func http1Client() throws(HTTPError) -> CurlTransport {
        let made: Result<CurlTransport, HTTPError> = fallback.withLock { state in
            if state.isShutDown { return .failure(HTTPError(.cancelled, "the HTTP/2 client is shut down")) }
            if let client = state.client { return .success(client) }
            do throws(HTTPError) {
                let client = try CurlTransport(configuration: configuration)
                state.client = client
                return .success(client)
            } catch {
                return .failure(error)
            }
        }
        return try made.get()
    }

    /// How long ago the event-loop thread last started a turn (it turns at least once a second while it runs).
    public var timeSinceLastTurn: Duration { loop.timeSinceLastTurn }

    /// The CPU time the event-loop thread has used (user and system) since it started.
    public var threadCPUTime: Duration { loop.cpu.elapsed }

    /// Connections opened and requests sent again since the transport started.
    public var counts: HTTP2TransportCounts { loop.counters.counts }

    /// Fails every queued and in-flight request with `.cancelled`, closes the connections (with GOAWAY) and stops
    /// the thread; later `send` calls fail with `.cancelled`.
    public func shutdown() async {
        admission.close()
        let client = fallback.withLock { state in
            state.isShutDown = true
            return state.client
        }
        await loop.stop()
        await client?.shutdown()
    }
}
