import HTTPTypes

/// A request of the nghttp2 transport (`PendingRequest`) with the state of its attempt: its connection and stream
/// id while in flight, how much of the body nghttp2 took, and the response as nghttp2's callbacks hand it over.
final class NGHTTP2Stream: PendingRequest, @unchecked Sendable {
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
    /// True once the response went past `HTTP2TransportConfiguration.maxResponseBytes`.
    private(set) var isOversized = false
    /// Header and body bytes received in this attempt.
    private var receivedBytes = 0
    /// The bytes a response may have (`HTTP2TransportConfiguration.maxResponseBytes`), set when placed.
    private var responseLimit = 0
    /// The response headers kept (`HTTP2TransportConfiguration.keptResponseHeaders`), set when placed.
    private var keptHeaders = KeptResponseHeaders.all

    override func finish(_ result: Result<HTTPResponse, HTTPError>) {
        super.finish(result)
        placement = nil
    }

    /// Starts an attempt on `connection` as its stream `streamID`, whose response may have `responseLimit` bytes and
    /// keeps the headers `keptHeaders` names.
    func placed(
        on connection: NGHTTP2Connection, as streamID: Int32, responseLimit: Int, keptHeaders: KeptResponseHeaders
    ) {
        self.responseLimit = responseLimit
        self.keptHeaders = keptHeaders
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

    /// One response header field; `:status` sets the status, other pseudo-headers and the headers not kept are
    /// dropped. Every field counts towards the bound, those of informational responses too.
    func receive(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        receivedResponseBytes = true
        guard !isOversized else { return }
        grow(by: name.count + value.count)
        guard !isOversized else { return }
        if name.first == UInt8(ascii: ":") {
            if name.elementsEqual(":status".utf8), value.count == 3, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                status = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                responseHeaders = []  // each response, informational or final, starts a new header block
            }
            return
        }
        guard keptHeaders.keeps(name) else { return }
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
        if receivedBytes > responseLimit {
            isOversized = true
            responseBody = []
        }
    }
}
