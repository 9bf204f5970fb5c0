internal import CCurl
import Essentials
import HTTPTypes

/// One request from `send` to its result: created by the caller's task, then owned by the event-loop thread.
///
/// `@unchecked Sendable`: the sending task hands it over through the event loop's locked inbox and never touches
/// it again; from then on only the event-loop thread reads or writes its state (libcurl's callbacks run there too).
final class Transfer: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>

    let id: UInt64
    let request: HTTPRequest
    let method: RequestMethod
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

    init(
        id: UInt64, request: HTTPRequest, method: RequestMethod, origin: RequestOrigin,
        now: ContinuousClock.Instant, continuation: Continuation
    ) {
        self.id = id
        self.request = request
        self.method = method
        self.origin = origin
        self.deadline = now + request.deadline
        self.continuation = continuation
    }

    var isFinished: Bool { continuation == nil }

    /// True if the response so far is whole by its own account: a `content-length` that the body has reached.
    var hasCompleteResponse: Bool {
        guard let length = responseHeaders.last(where: { $0.name.lowercased() == "content-length" }) else {
            return false
        }
        return Int(length.value) == responseBody.count
    }

    /// Delivers the result to the waiting caller; later calls do nothing.
    func finish(_ result: Result<HTTPResponse, HTTPError>) {
        continuation?.resume(returning: result)
        continuation = nil
        handle = nil
        headerList = nil
    }

    /// Sets up `handle` for this request's next attempt.
    func configure(
        _ handle: EasyHandle,
        configuration: HTTP2ClientConfiguration,
        certificates: TrustedCertificates?,
        now: ContinuousClock.Instant
    ) {
        responseHeaders = []
        responseBody = []
        receivedResponseBytes = false
        attempts += 1
        let remaining = (deadline - now).roundedUpMilliseconds
        let headers = HeaderList(lines: request.headers.map { "\($0.name): \($0.value)" } + suppressedDefaults)
        headerList = headers
        self.handle = handle

        handle.set(CURLOPT_URL, request.url)
        handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        handle.set(CURLOPT_NOSIGNAL, 1)
        handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        handle.set(CURLOPT_PIPEWAIT, 1)
        handle.set(CURLOPT_TIMEOUT_MS, Int(remaining))
        handle.set(CURLOPT_CONNECTTIMEOUT_MS, Int(min(remaining, configuration.connectTimeout.roundedUpMilliseconds)))
        handle.set(CURLOPT_TCP_KEEPALIVE, 1)
        handle.set(CURLOPT_TCP_KEEPIDLE, Int(max(1, configuration.tcpKeepAlive.roundedUpMilliseconds / 1000)))
        handle.set(CURLOPT_TCP_KEEPINTVL, Int(max(1, configuration.tcpKeepAlive.roundedUpMilliseconds / 1000)))
        handle.set(CURLOPT_MAXAGE_CONN, Int(max(1, configuration.idleConnectionTimeout.roundedUpMilliseconds / 1000)))
        if let certificates { handle.set(CURLOPT_CAINFO, certificates.path) }
        if let client = configuration.clientCertificate {
            // libcurl copies the strings; connections are only reused by transfers with the same certificate.
            handle.set(CURLOPT_SSLCERTTYPE, "PEM")
            handle.set(CURLOPT_SSLCERT, client.certificateFile)
            handle.set(CURLOPT_SSLKEYTYPE, "PEM")
            handle.set(CURLOPT_SSLKEY, client.keyFile)
            if let password = client.keyPassword { handle.set(CURLOPT_KEYPASSWD, password) }
        }
        if request.freshConnection { handle.set(CURLOPT_FRESH_CONNECT, 1) }
        handle.set(CURLOPT_HTTPHEADER, headers: headers)
        switch method {
        case .get: handle.set(CURLOPT_HTTPGET, 1)
        case .head: handle.set(CURLOPT_NOBODY, 1)
        case .withBody(let custom):
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
            if let custom { handle.set(CURLOPT_CUSTOMREQUEST, custom) }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        handle.set(CURLOPT_HEADERFUNCTION, callback: receiveHeaderLine)
        handle.set(CURLOPT_HEADERDATA, pointer: context)
        handle.set(CURLOPT_WRITEFUNCTION, callback: receiveBody)
        handle.set(CURLOPT_WRITEDATA, pointer: context)
    }

    /// libcurl's default headers that the request did not set itself, as "Name:" lines that remove them: no
    /// `Expect: 100-continue`, no form-encoded content type for a body, no `Accept: */*`.
    private var suppressedDefaults: [String] {
        let own = Set(request.headers.map { $0.name.lowercased() })
        return ["Expect", "Content-Type", "Accept"].filter { !own.contains($0.lowercased()) }.map { "\($0):" }
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
