internal import CNGHTTP2
import HTTPTypes

/// A request's HTTP/2 header fields for nghttp2: the pseudo-headers, the request's headers with lower-case names
/// (without the connection-specific ones HTTP/2 forbids), and `content-length` for a body — the `nghttp2_nv`
/// entries and the bytes they point at in one allocation, written once (nghttp2 copies them when submitting).
struct RequestHeaderBlock: ~Copyable {
    private let storage: UnsafeMutableRawPointer
    private let fields: UnsafeMutableBufferPointer<nghttp2_nv>

    init(_ request: HTTPRequest, method: RequestMethod, endpoint: OriginEndpoint, isTLS: Bool) {
        var url = request.url
        let (path, needsSlash) = url.withUTF8 { RequestOrigin.pathRange(in: $0) }
        let contentLength: String? =
            if case .withBody = method, !request.headers.contains(where: { $0.hasName("content-length") }) {
                String(request.body.count)
            } else {
                nil
            }
        var count = 4 + (contentLength == nil ? 0 : 1)
        var textBytes =
            ":method:scheme:authority:path".utf8.count + request.method.utf8.count + (isTLS ? 5 : 4)
            + endpoint.authority.utf8.count + path.count + (needsSlash ? 1 : 0)
            + (contentLength.map { "content-length".utf8.count + $0.utf8.count } ?? 0)
        // The headers are read where the request keeps them (by index): `for header in` copies each one, a retain
        // per name and value.
        let headers = request.headers
        for index in headers.indices where Self.isAllowed(headers[index]) {
            count += 1
            textBytes += headers[index].name.utf8.count + headers[index].value.utf8.count
        }
        let fieldBytes = count * MemoryLayout<nghttp2_nv>.stride
        storage = .allocate(byteCount: fieldBytes + textBytes, alignment: MemoryLayout<nghttp2_nv>.alignment)
        fields = UnsafeMutableBufferPointer(
            start: storage.bindMemory(to: nghttp2_nv.self, capacity: count), count: count)
        var writer = Writer(
            fields: fields, text: (storage + fieldBytes).bindMemory(to: UInt8.self, capacity: textBytes))
        writer.add(":method", request.method)
        writer.add(":scheme", isTLS ? "https" : "http")
        writer.add(":authority", endpoint.authority)
        url.withUTF8 { bytes in
            writer.add(":path", UnsafeBufferPointer(rebasing: bytes[path]), slashFirst: needsSlash)
        }
        for index in headers.indices where Self.isAllowed(headers[index]) {
            writer.add(headers[index].name, headers[index].value, lowercasingName: true)
        }
        if let contentLength { writer.add("content-length", contentLength) }
    }

    deinit { storage.deallocate() }

    /// Calls `body` with the fields, valid only during the call (nghttp2 copies them).
    func withFields<Result>(_ body: (UnsafeBufferPointer<nghttp2_nv>) -> Result) -> Result {
        body(UnsafeBufferPointer(fields))
    }

    /// The fields in order as `name: value` lines (tests and diagnostics).
    var lines: [String] {
        fields.map { field in
            String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self) + ": "
                + String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen), as: UTF8.self)
        }
    }

    /// False for the headers HTTP/2 forbids (RFC 9113 §8.2.2: `connection`, `keep-alive`, `proxy-connection`,
    /// `transfer-encoding`, `upgrade`, and `te` other than `trailers`) and for `host`, which `:authority` carries.
    private static func isAllowed(_ header: HTTPHeader) -> Bool {
        switch header.name.utf8.count {
        case 2: !header.hasName("te") || header.value.utf8.elementsEqualIgnoringASCIICase("trailers".utf8)
        case 4: !header.hasName("host")
        case 7: !header.hasName("upgrade")
        case 10: !header.hasName("connection") && !header.hasName("keep-alive")
        case 16: !header.hasName("proxy-connection")
        case 17: !header.hasName("transfer-encoding")
        default: true
        }
    }

    /// Writes fields one after the other into the block's memory.
    private struct Writer {
        let fields: UnsafeMutableBufferPointer<nghttp2_nv>
        var text: UnsafeMutablePointer<UInt8>
        var index = 0

        mutating func add(_ name: String, _ value: String, lowercasingName: Bool = false) {
            var value = value
            value.withUTF8 { value in add(name, value, lowercasingName: lowercasingName) }
        }

        mutating func add(
            _ name: String, _ value: UnsafeBufferPointer<UInt8>, slashFirst: Bool = false, lowercasingName: Bool = false
        ) {
            let nameStart = text
            // Copied as a block, then lowered in place: a byte at a time through the string's view cost more than
            // the rest of the block.
            var name = name
            name.withUTF8 { name in
                if let base = name.baseAddress { text.update(from: base, count: name.count) }
                if lowercasingName {
                    for index in 0..<name.count where (0x41...0x5A).contains(text[index]) { text[index] |= 0x20 }
                }
                text += name.count
            }
            let valueStart = text
            if slashFirst {
                text.pointee = UInt8(ascii: "/")
                text += 1
            }
            if let base = value.baseAddress { text.update(from: base, count: value.count) }
            text += value.count
            fields.initializeElement(
                at: index,
                to: nghttp2_nv(
                    name: nameStart, value: valueStart, namelen: valueStart - nameStart, valuelen: text - valueStart,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            index += 1
        }
    }
}
