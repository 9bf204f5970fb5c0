internal import CNGHTTP2
import Essentials
import HTTPTypes

/// A request's HTTP/2 header fields for nghttp2: the pseudo-headers, the request's headers with lower-case names
/// (without the connection-specific ones HTTP/2 forbids), and `content-length` for a body — the `nghttp2_nv`
/// entries and the bytes they point at in one allocation, written once (nghttp2 copies them when submitting).
struct RequestHeaderBlock: ~Copyable {
    private let storage: UnsafeMutableRawPointer
    private let fields: UnsafeMutableBufferPointer<nghttp2_nv>

    init(_ request: borrowing HTTPRequest, method: RequestMethod, endpoint: OriginEndpoint, isTLS: Bool) {
        // Every text is read through its UTF-8 bytes in place (`withUTF8Bytes`): passed around as `String`s, each name
        // and value would be retained and released a few times over (about 250 calls for a request of eight headers).
        (storage, fields) = request.headers.withUnsafeBufferPointer { headers in
            request.url.withUTF8Bytes { url in
                Self.block(
                    request, headers: headers, url: url, method: method, authority: endpoint.authority, isTLS: isTLS)
            }
        }
    }

    /// The block's memory and fields, written for `request` with its `headers` and `url` as the init reads them. The
    /// memory is sized for every header and a `content-length` (those HTTP/2 forbids take a few bytes they do not
    /// use), so that each header is read once, as it is written.
    private static func block(
        _ request: borrowing HTTPRequest, headers: UnsafeBufferPointer<HTTPHeader>, url: UnsafeBufferPointer<UInt8>,
        method: RequestMethod, authority: String, isTLS: Bool
    ) -> (UnsafeMutableRawPointer, UnsafeMutableBufferPointer<nghttp2_nv>) {
        let (path, needsSlash) = RequestOrigin.pathRange(in: url)
        let capacity = 5 + headers.count
        // The texts: the pseudo-headers', every header's, and a `content-length` of at most 20 digits (an `Int`).
        var textBytes =
            ":method:scheme:authority:path".utf8.count + request.method.utf8.count + (isTLS ? 5 : 4)
            + authority.utf8.count + path.count + (needsSlash ? 1 : 0) + "content-length".utf8.count + 20
        for header in headers.indices {
            textBytes += headers[header].name.utf8.count + headers[header].value.utf8.count
        }
        let fieldBytes = capacity * MemoryLayout<nghttp2_nv>.stride
        let storage = UnsafeMutableRawPointer.allocate(
            byteCount: fieldBytes + textBytes, alignment: MemoryLayout<nghttp2_nv>.alignment)
        var writer = Writer(
            fields: UnsafeMutableBufferPointer(
                start: storage.bindMemory(to: nghttp2_nv.self, capacity: capacity), count: capacity),
            text: (storage + fieldBytes).bindMemory(to: UInt8.self, capacity: textBytes))
        request.method.withUTF8Bytes { writer.add(":method", $0) }
        writer.add(":scheme", isTLS ? "https" : "http")
        authority.withUTF8Bytes { writer.add(":authority", $0) }
        writer.add(":path", UnsafeBufferPointer(rebasing: url[path]), slashFirst: needsSlash)
        var hasContentLength = false
        for header in headers.indices {
            headers[header].name.withUTF8Bytes { name in
                headers[header].value.withUTF8Bytes { value in
                    guard Self.isAllowed(name: name, value: value) else { return }
                    writer.add(name, value, lowercasingName: true)
                    hasContentLength = hasContentLength || Self.equal(name, "content-length")
                }
            }
        }
        if case .withBody = method, !hasContentLength {
            String(request.body.count).withUTF8Bytes { writer.add("content-length", $0) }
        }
        return (storage, UnsafeMutableBufferPointer(rebasing: writer.fields[..<writer.index]))
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
    private static func isAllowed(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 2: !equal(name, "te") || equal(value, "trailers")
        case 4: !equal(name, "host")
        case 7: !equal(name, "upgrade")
        case 10: !equal(name, "connection") && !equal(name, "keep-alive")
        case 16: !equal(name, "proxy-connection")
        case 17: !equal(name, "transfer-encoding")
        default: true
        }
    }

    /// Whether `bytes` are `text`, ASCII case folded.
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        bytes.count == text.utf8CodeUnitCount
            && bytes.elementsEqualIgnoringASCIICase(
                UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes fields one after the other into the block's memory.
    private struct Writer {
        let fields: UnsafeMutableBufferPointer<nghttp2_nv>
        var text: UnsafeMutablePointer<UInt8>
        var index = 0

        mutating func add(_ name: StaticString, _ value: StaticString) {
            add(
                UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount),
                UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
        }

        mutating func add(_ name: StaticString, _ value: UnsafeBufferPointer<UInt8>, slashFirst: Bool = false) {
            let name = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            add(name, value, slashFirst: slashFirst)
        }

        /// Copies the name (lowered in place when `lowercasingName`: a byte at a time through a string's view cost
        /// more than the rest of the block) and the value, `/` first when `slashFirst`.
        mutating func add(
            _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, slashFirst: Bool = false,
            lowercasingName: Bool = false
        ) {
            let nameStart = text
            if let base = name.baseAddress { text.update(from: base, count: name.count) }
            if lowercasingName {
                for index in 0..<name.count where (0x41...0x5A).contains(text[index]) { text[index] |= 0x20 }
            }
            text += name.count
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
