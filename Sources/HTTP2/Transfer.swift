internal import CCurl

/// One request from `send` to its result: created by the caller's task, then owned by the event-loop thread.
///
/// `@unchecked Sendable`: the sending task hands it over through the event loop's locked inbox and never touches
/// it again; from then on only the event-loop thread reads or writes its state (libcurl's callbacks run there too).
final class Transfer: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>

    let id: UInt64
    let request: HTTPRequest
    let origin: RequestOrigin
    let deadline: ContinuousClock.Instant
    private var continuation: Continuation?
    /// Times this request was handed to libcurl.
    var attempts = 0
    /// The easy handle while the request is in flight.
    var handle: EasyHandle?
    private var headerList: HeaderList?
    private(set) var responseHeaders: [HTTPHeader] = []
    private(set) var responseBody: [UInt8] = []
    /// True once any byte of a response (status line, header or body) arrived in this attempt.
    private(set) var receivedResponseBytes = false

    init(id: UInt64, request: HTTPRequest, origin: RequestOrigin, now: ContinuousClock.Instant, continuation: Continuation) {
        self.id = id
        self.request = request
        self.origin = origin
        self.deadline = now + request.deadline
        self.continuation = continuation
    }

    var isFinished: Bool { continuation == nil }

    /// Delivers the result to the waiting caller; later calls do nothing.
    func finish(_ result: Result<HTTPResponse, HTTPError>) {
        continuation?.resume(returning: result)
        continuation = nil
        handle = nil
        headerList = nil
    }

    /// Sets up `handle` for this request's next attempt; returns nil or the reason the request cannot be sent.
    func configure(
        _ handle: EasyHandle,
        configuration: HTTP2ClientConfiguration,
        certificates: TrustedCertificates?,
        now: ContinuousClock.Instant
    ) -> HTTPError? {
        guard let methodOption = Transfer.validate(request) else {
            return HTTPError(.invalidRequest, "request to \(origin) has an invalid method or header")
        }
        responseHeaders = []
        responseBody = []
        receivedResponseBytes = false
        attempts += 1
        let remaining = (deadline - now).roundedUpMilliseconds
        let headers = HeaderList(lines: request.headers.map { "\($0.name): \($0.value)" } + ["Expect:"])
        headerList = headers
        self.handle = handle

        handle.set(CURLOPT_URL, request.url)
        handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        handle.set(CURLOPT_NOSIGNAL, 1)
        handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        handle.set(CURLOPT_PIPEWAIT, 1)
        handle.set(CURLOPT_TIMEOUT_MS, remaining)
        handle.set(CURLOPT_CONNECTTIMEOUT_MS, min(remaining, configuration.connectTimeout.roundedUpMilliseconds))
        handle.set(CURLOPT_TCP_KEEPALIVE, 1)
        handle.set(CURLOPT_TCP_KEEPIDLE, max(1, configuration.tcpKeepAlive.roundedUpMilliseconds / 1000))
        handle.set(CURLOPT_TCP_KEEPINTVL, max(1, configuration.tcpKeepAlive.roundedUpMilliseconds / 1000))
        handle.set(CURLOPT_MAXAGE_CONN, max(1, configuration.idleConnectionTimeout.roundedUpMilliseconds / 1000))
        if let certificates { handle.set(CURLOPT_CAINFO_BLOB, blob: certificates.bytes) }
        handle.set(CURLOPT_HTTPHEADER, headers: headers)
        switch methodOption {
        case .get: handle.set(CURLOPT_HTTPGET, 1)
        case .head: handle.set(CURLOPT_NOBODY, 1)
        case .withBody(let custom):
            handle.set(CURLOPT_POSTFIELDSIZE_LARGE, size: request.body.count)
            request.body.withUnsafeBytes { bytes in
                _ = handle.set(CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
            if request.body.isEmpty { handle.set(CURLOPT_COPYPOSTFIELDS, "") }
            if let custom { handle.set(CURLOPT_CUSTOMREQUEST, custom) }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        handle.set(CURLOPT_HEADERFUNCTION, callback: receiveHeaderLine)
        handle.set(CURLOPT_HEADERDATA, pointer: context)
        handle.set(CURLOPT_WRITEFUNCTION, callback: receiveBody)
        handle.set(CURLOPT_WRITEDATA, pointer: context)
        return nil
    }

    /// How a method is expressed to libcurl.
    private enum MethodOption {
        case get
        case head
        /// A request with a body; the custom method name unless it is POST.
        case withBody(custom: String?)
    }

    /// Nil if the method is not an HTTP token or a header could split a line (header injection).
    private static func validate(_ request: HTTPRequest) -> MethodOption? {
        let method = request.method
        guard !method.isEmpty, method.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
        for header in request.headers {
            let bad: (UInt8) -> Bool = { $0 == 0x0A || $0 == 0x0D || $0 == 0 }
            guard !header.name.isEmpty, !header.name.utf8.contains(where: { bad($0) || $0 == 0x3A || $0 == 0x20 }),
                !header.value.utf8.contains(where: bad)
            else { return nil }
        }
        switch method {
        case "GET" where request.body.isEmpty: return .get
        case "HEAD": return .head
        case "POST": return .withBody(custom: nil)
        default: return .withBody(custom: method)
        }
    }

    fileprivate func receive(headerLine bytes: UnsafeRawBufferPointer) {
        receivedResponseBytes = true
        let line = String(decoding: bytes, as: UTF8.self).trimmingSuffix { $0.isNewline || $0 == " " || $0 == "\t" }
        if line.hasPrefix("HTTP/") {
            responseHeaders = []  // a new status line (after an informational response) starts a new header block
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            responseHeaders.append(HTTPHeader(name, String(value)))
        }
    }

    fileprivate func receive(body bytes: UnsafeRawBufferPointer) {
        receivedResponseBytes = true
        responseBody.append(contentsOf: bytes)
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[..<end]
    }
}

/// libcurl's header callback: one response header line per call, `context` is the unretained `Transfer`.
private let receiveHeaderLine: pw_curl_data_callback = { data, size, count, context in
    let length = size * count
    guard let context, let data else { return length }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    transfer.receive(headerLine: UnsafeRawBufferPointer(start: data, count: length))
    return length
}

/// libcurl's write callback: a piece of the response body, `context` is the unretained `Transfer`.
private let receiveBody: pw_curl_data_callback = { data, size, count, context in
    let length = size * count
    guard let context, let data else { return length }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    transfer.receive(body: UnsafeRawBufferPointer(start: data, count: length))
    return length
}
