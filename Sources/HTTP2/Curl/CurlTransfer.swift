internal import CCurl
import Essentials
import HTTPTypes
import Sockets

/// A request of the libcurl transport (`PendingRequest`) with the state of its attempt: the easy handle while in
/// flight, the header list it was given, and the response as libcurl hands it over.
final class CurlTransfer: PendingRequest, @unchecked Sendable {
    /// The response bytes the transfers of one loop received, all attempts together: a loop turn after which it
    /// is unchanged received nothing (`IdleTurnPacer`). Confined to the loop's thread.
    final class ReceivedBytes {
        var count = 0
    }

    /// Its attempts so far, and whether another may follow one that ended without a response.
    var resends = ResendAllowance()
    /// True once this attempt's request went out on a connection (libcurl's pre-request callback).
    private var requestWentOut = false
    /// True when libcurl went to send this attempt's request again after it had gone out: libcurl 7.88 does that
    /// at once after REFUSED_STREAM (or on a reused connection that was dead), on a new connection or another
    /// open one. The transport refuses that socket, or aborts that second request, so the attempt fails, and
    /// resends by itself, counted and paced (`ResendAllowance`, `RefusalBackoff`).
    private(set) var stoppedReconnect = false
    /// True once libcurl was refused a socket to an address the origin may not connect to (`publicAddressesOnly`).
    private(set) var refusedAddress = false
    /// The easy handle while the request is in flight.
    var handle: EasyHandle?
    private var headerList: HeaderList?
    private(set) var responseHeaders: [HTTPHeader] = []
    private(set) var responseBody: [UInt8] = []
    /// True once any byte of a response (status line, header or body) arrived in this attempt.
    private(set) var receivedResponseBytes = false
    /// True once the response went past `HTTP2TransportConfiguration.maxResponseBytes` (libcurl then ends the
    /// transfer with a write error and resets its stream).
    private(set) var isOversized = false
    /// Header and body bytes received in this attempt.
    private var receivedBytes = 0
    /// The loop's tally, while in flight.
    private var loopTally: ReceivedBytes?
    /// The bytes a response may have (`HTTP2TransportConfiguration.maxResponseBytes`).
    private var responseLimit = 0
    /// The response headers kept (`HTTP2TransportConfiguration.keptResponseHeaders`).
    private var keptHeaders = KeptResponseHeaders.all
    /// The last `content-length` of the response's header block, read whether or not its header is kept; `nil` when it
    /// has none or one that is not a number.
    private var declaredLength: Int?

    /// True if the response so far is whole by its own account: a `content-length` that the body has reached.
    var hasCompleteResponse: Bool {
        guard let declaredLength else { return false }
        return declaredLength == responseBody.count
    }

    override func finish(_ result: Result<HTTPResponse, HTTPError>) {
        super.finish(result)
        handle = nil
        headerList = nil
        loopTally = nil
    }

    /// Sets up `handle` (made with the client's options, `EasyHandle.init(configuration:certificates:)`) for this
    /// request's next attempt: every option that differs between requests is set, so nothing of the handle's last
    /// request carries over.
    func configure(
        _ handle: EasyHandle, configuration: HTTP2TransportConfiguration, tally: ReceivedBytes,
        now: ContinuousClock.Instant
    ) {
        loopTally = tally
        responseLimit = configuration.maxResponseBytes
        keptHeaders = configuration.keptResponseHeaders
        responseHeaders = []
        declaredLength = nil
        responseBody = []
        receivedResponseBytes = false
        isOversized = false
        receivedBytes = 0
        requestWentOut = false
        stoppedReconnect = false
        refusedAddress = false
        resends.attemptStarted()
        let remaining = (deadline - now).roundedUpMilliseconds
        let headers = HeaderList(request.headers, removingUnset: Self.suppressedDefaults)
        headerList = headers
        self.handle = handle

        handle.clearErrorText()
        handle.set(CURLOPT_URL, request.url)
        handle.set(CURLOPT_TIMEOUT_MS, Int(remaining))
        handle.set(CURLOPT_CONNECTTIMEOUT_MS, Int(min(remaining, configuration.connectTimeout.roundedUpMilliseconds)))
        handle.set(CURLOPT_FRESH_CONNECT, request.freshConnection ? 1 : 0)
        handle.set(CURLOPT_HTTPHEADER, headers: headers)
        switch method {
        case .get:
            handle.set(CURLOPT_HTTPGET, 1)  // also clears NOBODY and a body of an earlier request
        case .head:
            handle.set(CURLOPT_NOBODY, 1)
        case .withBody:
            handle.set(CURLOPT_NOBODY, 0)
            handle.set(CURLOPT_POSTFIELDSIZE_LARGE, size: request.body.count)
            if request.body.isEmpty {
                handle.set(CURLOPT_COPYPOSTFIELDS, "")
            } else {
                // libcurl copies the body (POSTFIELDSIZE bytes), so the buffer need not outlive this call.
                request.body.withUnsafeBytes { bytes in
                    _ = handle.set(
                        CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
            }
        }
        if case .withBody(let custom?) = method {
            handle.set(CURLOPT_CUSTOMREQUEST, custom)
        } else {
            handle.set(CURLOPT_CUSTOMREQUEST, pointer: nil)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        handle.set(CURLOPT_HEADERDATA, pointer: context)
        handle.set(CURLOPT_WRITEDATA, pointer: context)
        handle.set(CURLOPT_OPENSOCKETDATA, pointer: context)
        handle.set(CURLOPT_PREREQDATA, pointer: context)
    }

    /// Points a new handle's header, body, socket and pre-request callbacks at whichever `CurlTransfer` is its
    /// request's context (`CURLOPT_HEADERDATA`, `CURLOPT_WRITEDATA`, `CURLOPT_OPENSOCKETDATA`,
    /// `CURLOPT_PREREQDATA`, set by `configure`).
    static func installCallbacks(on handle: EasyHandle) {
        handle.set(CURLOPT_HEADERFUNCTION, callback: receiveHeaderLine)
        handle.set(CURLOPT_WRITEFUNCTION, callback: receiveBody)
        handle.setOpenSocket(callback: openSocketCallback)
        handle.setPrerequest(callback: requestGoesOutCallback)
    }

    /// Whether libcurl may open a socket to `address` for this attempt: not once its request went out on a
    /// connection, nor to an address the origin may not connect to (`refusedAddress`).
    fileprivate func mayOpenSocket(to address: SocketAddress) -> Bool {
        if requestWentOut { stoppedReconnect = true }
        if origin.publicAddressesOnly, !address.isPublic {
            refusedAddress = true
            return false
        }
        return !requestWentOut
    }

    /// Whether this attempt's request may go out on a connection now: once, not again on libcurl's own retry.
    fileprivate func mayRequestGoOut() -> Bool {
        if requestWentOut {
            stoppedReconnect = true
            return false
        }
        requestWentOut = true
        return true
    }

    /// libcurl's default headers that a request's lines remove (an empty `Name:` line) unless it sets them itself:
    /// no `Expect: 100-continue`, no form-encoded content type for a body, no `Accept: */*`.
    static let suppressedDefaults: [StaticString] = ["Expect", "Content-Type", "Accept"]

    /// One header line as libcurl hands it over, read as bytes: a status line starts a new header block, a
    /// `name: value` line adds a header (the value without surrounding blanks and the line break). False once the
    /// response is over its bound (every line counts, those of informational responses too).
    fileprivate func receive(headerLine bytes: UnsafeRawBufferPointer) -> Bool {
        receivedResponseBytes = true
        guard grow(by: bytes.count) else { return false }
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || (0x0A...0x0D).contains($0) }
        var end = bytes.endIndex
        while end > bytes.startIndex, isBlank(bytes[end - 1]) { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        if line.starts(with: "HTTP/".utf8) {
            // A new status line (after an informational response) starts a new header block.
            responseHeaders = []
            declaredLength = nil
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            var valueStart = colon + 1
            while valueStart < line.endIndex, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
            let name = line[..<colon]
            if name.count == 14, name.elementsEqualIgnoringASCIICase("content-length".utf8) {
                declaredLength = Int(String(decoding: line[valueStart...], as: UTF8.self))
            }
            guard keptHeaders.keeps(name) else { return true }
            if responseHeaders.isEmpty { responseHeaders.reserveCapacity(8) }
            responseHeaders.append(
                HTTPHeader(
                    String(decoding: name, as: UTF8.self),
                    String(decoding: line[valueStart...], as: UTF8.self)))
        }
        return true
    }

    /// A piece of the response body; false once the response is over its bound.
    fileprivate func receive(body bytes: UnsafeRawBufferPointer) -> Bool {
        receivedResponseBytes = true
        guard grow(by: bytes.count) else { return false }
        responseBody.append(contentsOf: bytes)
        return true
    }

    /// Counts `count` more bytes of the response; false (and the body dropped) once they are past the bound.
    private func grow(by count: Int) -> Bool {
        receivedBytes += count
        loopTally?.count &+= count
        guard receivedBytes > responseLimit else { return true }
        isOversized = true
        responseBody = []
        return false
    }
}

/// libcurl's header callback: one response header line per call, `context` is the unretained `CurlTransfer`. Taking
/// fewer bytes than given (0) ends the transfer with a write error, past the response's bound.
private let receiveHeaderLine: pw_curl_data_callback = { data, size, count, context in
    let length = size * count
    guard let context, let data else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receive(headerLine: UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// libcurl's write callback: a piece of the response body, `context` is the unretained `CurlTransfer`. Taking fewer
/// bytes than given (0) ends the transfer with a write error, past the response's bound.
private let receiveBody: pw_curl_data_callback = { data, size, count, context in
    let length = size * count
    guard let context, let data else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receive(body: UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// libcurl's socket opener, `context` is the unretained `CurlTransfer`: the socket libcurl's own opener would make, unless
/// the attempt's request already went out on a connection (then CURL_SOCKET_BAD: the attempt fails at once).
private let openSocketCallback: pw_curl_open_socket_callback = { context, _, address in
    guard let address else { return CURL_SOCKET_BAD }
    // `addr` is declared a `sockaddr`, but libcurl's storage behind it holds all `addrlen` bytes (an IPv6 one's too).
    let addressBytes = UnsafeRawBufferPointer(
        start: UnsafeRawPointer(address) + (MemoryLayout<curl_sockaddr>.offset(of: \.addr) ?? 0),
        count: Int(address.pointee.addrlen))
    let target = SocketAddress(family: address.pointee.family, bytes: Array(addressBytes))
    if let context, !Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().mayOpenSocket(to: target) {
        return CURL_SOCKET_BAD
    }
    return pw_curl_open_socket(address)
}

/// libcurl's pre-request callback, `context` is the unretained `CurlTransfer`: the request goes out now, unless it
/// went out before in this attempt (then CURL_PREREQFUNC_ABORT: the attempt fails at once).
private let requestGoesOutCallback: pw_curl_prerequest_callback = { context, _, _, _, _ in
    if let context, !Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().mayRequestGoOut() {
        return CURL_PREREQFUNC_ABORT
    }
    return CURL_PREREQFUNC_OK
}
