internal import CCurl
import Essentials
import HTTPTypes

/// Makes libcurl's process-wide state ready exactly once, before the first handle is created.
let curlGlobalInitialization: Void = {
    _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
}()

/// Owns one libcurl easy handle (`CURL*`); reused across requests by the event loop. The options every request of
/// a client shares are set once, when the handle is made (`init(configuration:certificates:)`); a request sets
/// only its own (`CurlTransfer.configure`), overwriting every option an earlier request of the handle may have set.
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    /// libcurl's detailed text for the last failure (`CURLOPT_ERRORBUFFER`, `CURL_ERROR_SIZE` bytes).
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// Nil if libcurl could not allocate a handle.
    init?() {
        curlGlobalInitialization
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        attachErrorBuffer()
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// A handle with the options shared by every request of a client with `configuration`; nil if libcurl could
    /// not allocate one.
    convenience init?(configuration: HTTP2TransportConfiguration, certificates: TrustedCertificates?) {
        self.init()
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        set(CURLOPT_PIPEWAIT, 1)
        set(CURLOPT_TCP_KEEPALIVE, 1)
        set(CURLOPT_TCP_KEEPIDLE, Int(max(1, configuration.tcpKeepAlive.roundedUpMilliseconds / 1000)))
        set(CURLOPT_TCP_KEEPINTVL, Int(max(1, configuration.tcpKeepAlive.roundedUpMilliseconds / 1000)))
        set(CURLOPT_MAXAGE_CONN, Int(max(1, configuration.idleConnectionTimeout.roundedUpMilliseconds / 1000)))
        // A handle keeps its upload buffer (64 KB by default) from its first request to its end; a push body is at
        // most 4 KB, so the smallest one libcurl takes does: 48 KB less for each of up to 200 pooled handles.
        set(CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferBytes)
        if let certificates { set(CURLOPT_CAINFO, certificates.path) }
        if let client = configuration.clientCertificate {
            // libcurl copies the strings; connections are only reused by transfers with the same certificate.
            set(CURLOPT_SSLCERTTYPE, "PEM")
            set(CURLOPT_SSLCERT, client.certificateFile)
            set(CURLOPT_SSLKEYTYPE, "PEM")
            set(CURLOPT_SSLKEY, client.keyFile)
            if let password = client.keyPassword { set(CURLOPT_KEYPASSWD, password) }
        }
    }

    /// The upload buffer of every handle: libcurl's smallest (`CURLOPT_UPLOAD_BUFFERSIZE`).
    static let uploadBufferBytes = 16 * 1024

    /// Forgets the last failure's text before the handle's next request.
    func clearErrorText() {
        errorBuffer[0] = 0
    }

    /// libcurl's detailed text for the last failed transfer (e.g. the TLS alert a server sent), or nil.
    var errorText: String? {
        let text = String(cString: errorBuffer)
        return text.isEmpty ? nil : text
    }

    private func attachErrorBuffer() {
        _ = pw_curl_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: Int) -> CURLcode { pw_curl_easy_setopt_long(raw, option, value) }

    @discardableResult
    func set(_ option: CURLoption, size value: Int) -> CURLcode {
        pw_curl_easy_setopt_off_t(raw, option, curl_off_t(value))
    }

    /// Sets a string option; libcurl copies the string.
    @discardableResult
    func set(_ option: CURLoption, _ value: String) -> CURLcode {
        pw_curl_easy_setopt_string(raw, option, value)
    }

    @discardableResult
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) -> CURLcode {
        pw_curl_easy_setopt_pointer(raw, option, value)
    }

    @discardableResult
    func set(_ option: CURLoption, headers: HeaderList) -> CURLcode {
        pw_curl_easy_setopt_slist(raw, option, headers.raw)
    }

    @discardableResult
    func set(_ option: CURLoption, callback: pw_curl_data_callback) -> CURLcode {
        pw_curl_easy_setopt_data_callback(raw, option, callback)
    }

    @discardableResult
    func setOpenSocket(callback: pw_curl_open_socket_callback) -> CURLcode {
        pw_curl_easy_setopt_open_socket_callback(raw, callback)
    }

    @discardableResult
    func setPrerequest(callback: pw_curl_prerequest_callback) -> CURLcode {
        pw_curl_easy_setopt_prerequest_callback(raw, callback)
    }

    func info(_ info: CURLINFO) -> Int {
        var value = 0
        _ = pw_curl_easy_getinfo_long(raw, info, &value)
        return value
    }

    func stringInfo(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard pw_curl_easy_getinfo_string(raw, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}

/// Owns a `curl_slist` of request header lines for the life of one transfer, built in one allocation: the list's
/// nodes, then their NUL-terminated lines (libcurl only reads a `CURLOPT_HTTPHEADER` list, never frees it), instead
/// of `curl_slist_append`'s two allocations per line.
final class HeaderList {
    private let storage: UnsafeMutableRawPointer
    /// The first node, nil for no lines.
    let raw: UnsafeMutablePointer<curl_slist>?

    /// `Name: value` for each header, then `Name:` for each of `defaults` that no header names (an empty line drops
    /// a libcurl default header).
    init(_ headers: [HTTPHeader], removingUnset defaults: [StaticString]) {
        var removed: UInt8 = 0  // bit i: defaults[i] is removed (at most 8 defaults)
        var textBytes = 0
        for (index, name) in defaults.prefix(8).enumerated() {
            let text = name.description  // a few bytes: a small string, not allocated
            guard !headers.contains(where: { $0.hasName(text) }) else { continue }
            removed |= 1 << index
            textBytes += name.utf8CodeUnitCount + 2
        }
        let count = headers.count + removed.nonzeroBitCount
        for header in headers { textBytes += header.name.utf8.count + header.value.utf8.count + 3 }
        let nodesBytes = count * MemoryLayout<curl_slist>.stride
        storage = .allocate(byteCount: max(1, nodesBytes + textBytes), alignment: MemoryLayout<curl_slist>.alignment)
        let nodes = storage.bindMemory(to: curl_slist.self, capacity: count)
        var text = (storage + nodesBytes).bindMemory(to: UInt8.self, capacity: textBytes)
        var index = 0
        func write(_ part: UnsafeBufferPointer<UInt8>) {
            if let base = part.baseAddress { text.update(from: base, count: part.count) }
            text += part.count
        }
        /// Ends the line written since `start` and links it into the list.
        func endLine(startedAt start: UnsafeMutablePointer<UInt8>) {
            text.pointee = 0
            text += 1
            let next = index + 1 < count ? nodes + index + 1 : nil
            (nodes + index).initialize(
                to: curl_slist(data: UnsafeMutableRawPointer(start).assumingMemoryBound(to: CChar.self), next: next))
            index += 1
        }
        let separator: StaticString = ": "
        for header in headers {
            let start = text
            header.name.withUTF8Bytes(write)
            write(UnsafeBufferPointer(start: separator.utf8Start, count: 2))
            header.value.withUTF8Bytes(write)
            endLine(startedAt: start)
        }
        for (index, name) in defaults.prefix(8).enumerated() where removed & (1 << index) != 0 {
            let start = text
            write(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            write(UnsafeBufferPointer(start: separator.utf8Start, count: 1))
            endLine(startedAt: start)
        }
        raw = count > 0 ? nodes : nil
    }

    deinit { storage.deallocate() }
}

/// Owns the libcurl multi handle (`CURLM*`). Only the event-loop thread calls it, except `wakeup()`.
final class MultiHandle {
    private let raw: UnsafeMutableRawPointer

    /// Nil if libcurl could not allocate a multi handle.
    init?(configuration: HTTP2TransportConfiguration) {
        curlGlobalInitialization
        guard let raw = curl_multi_init() else { return nil }
        self.raw = raw
        _ = pw_curl_multi_setopt_long(raw, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = pw_curl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        _ = pw_curl_multi_setopt_long(
            raw,
            CURLMOPT_MAX_CONCURRENT_STREAMS,
            max(1, configuration.maxStreamsPerConnection)
        )
        _ = pw_curl_multi_setopt_long(raw, CURLMOPT_MAXCONNECTS, max(1, configuration.maxConnectionsPerHost) * 4)
    }

    deinit { curl_multi_cleanup(raw) }

    /// Interrupts a `poll` in progress; safe from any thread.
    func wakeup() { _ = curl_multi_wakeup(raw) }

    func add(_ handle: EasyHandle) -> Bool { curl_multi_add_handle(raw, handle.raw) == CURLM_OK }

    func remove(_ handle: EasyHandle) { _ = curl_multi_remove_handle(raw, handle.raw) }

    /// Drives every transfer as far as it goes without blocking.
    func perform() {
        var running: Int32 = 0
        _ = curl_multi_perform(raw, &running)
    }

    /// Waits for socket activity, a libcurl timer, a `wakeup()` or `milliseconds`, whichever comes first.
    func poll(milliseconds: Int) {
        _ = curl_multi_poll(raw, nil, 0, Int32(clamping: milliseconds), nil)
    }

    /// The next finished transfer: its easy handle and result.
    func nextFinished() -> (handle: UnsafeMutableRawPointer, result: CURLcode)? {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(raw, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle {
                return (handle, pw_curl_msg_result(message))
            }
        }
        return nil
    }
}
