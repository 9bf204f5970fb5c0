import HTTPTypes

/// One request of the nghttp2 transport from `send` to its result: created by the caller's task, then owned by
/// the transport's thread.
///
/// `@unchecked Sendable`: the sending task hands it over through the loop's locked inbox and never touches it
/// again; from then on only the loop's thread reads or writes it (nghttp2's callbacks run there too).
final class NGHTTP2Stream: LoopRequest, @unchecked Sendable {
    typealias Continuation = UnsafeContinuation<Result<HTTPResponse, HTTPError>, Never>

    /// The response bytes one stream may receive; a larger response fails the stream (providers answer in
    /// bytes, so more is a fault or an attack).
    static let maximumResponseBytes = 1 << 20

    let id: UInt64
    let request: HTTPRequest
    let method: RequestMethod
    let origin: RequestOrigin
    let deadline: ContinuousClock.Instant
    private var continuation: Continuation?
    /// Its attempts so far, and whether another may follow one that ended without a response.
    var resends = ResendAllowance()
    /// The connection and HTTP/2 stream id while the request is in flight.
    private(set) var placement: (connection: NGHTTP2Connection, streamID: Int32)?
    /// How much of the request body nghttp2 has taken.
    var bodyOffset = 0
    private(set) var status = 0
    private(set) var responseHeaders: [HTTPHeader] = []
    private(set) var responseBody: [UInt8] = []
    /// True once any byte of a response arrived in this attempt.
    private(set) var receivedResponseBytes = false
    /// True once the response went past `maximumResponseBytes`.
    private(set) var isOversized = false
    /// Header and body bytes received in this attempt.
    private var receivedBytes = 0

    init(
        id: UInt64, request: HTTPRequest, method: RequestMethod, origin: RequestOrigin, now: ContinuousClock.Instant,
        continuation: Continuation
    ) {
        self.id = id
        self.request = request
        self.method = method
        self.origin = origin
        self.deadline = now + request.deadline
        self.continuation = continuation
    }

    var isFinished: Bool { continuation == nil }

    /// Delivers the result to the waiting caller; later calls do nothing.
    func finish(_ result: Result<HTTPResponse, HTTPError>) {
        continuation?.resume(returning: result)
        continuation = nil
        placement = nil
    }

    /// Starts an attempt on `connection` as its stream `streamID`.
    func placed(on connection: NGHTTP2Connection, as streamID: Int32) {
        resends.attemptStarted()
        placement = (connection, streamID)
        bodyOffset = 0
        status = 0
        responseHeaders = []
        responseBody = []
        receivedResponseBytes = false
        isOversized = false
        receivedBytes = 0
    }

    /// Ends the attempt in flight (the stream closed or its connection went away).
    func unplaced() { placement = nil }

    /// One response header field; `:status` sets the status, other pseudo-headers are dropped.
    func receive(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        receivedResponseBytes = true
        guard !isOversized else { return }
        if name.first == UInt8(ascii: ":") {
            if name.elementsEqual(":status".utf8), value.count == 3, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                let informational = value.first == UInt8(ascii: "1")
                status = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                if informational { responseHeaders = [] }  // an informational response starts a new header block
            }
            return
        }
        grow(by: name.count + value.count)
        if responseHeaders.isEmpty { responseHeaders.reserveCapacity(8) }
        responseHeaders.append(
            HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    /// A piece of the response body.
    func receive(body: UnsafeBufferPointer<UInt8>) {
        receivedResponseBytes = true
        grow(by: body.count)
        guard !isOversized else { return }
        responseBody.append(contentsOf: body)
    }

    /// The response received, once the stream closed without error.
    var response: HTTPResponse { HTTPResponse(status: status, headers: responseHeaders, body: responseBody) }

    private func grow(by count: Int) {
        receivedBytes += count
        if receivedBytes > Self.maximumResponseBytes {
            isOversized = true
            responseBody = []
        }
    }
}
