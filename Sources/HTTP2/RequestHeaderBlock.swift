internal import CNGHTTP2
import HTTPTypes

/// A request's HTTP/2 header fields for nghttp2: the pseudo-headers, the request's headers with lower-case names
/// (without the connection-specific ones HTTP/2 forbids), and `content-length` for a body, written into one byte
/// buffer that the `nghttp2_nv` entries point into while nghttp2 copies them.
struct RequestHeaderBlock {
    private var bytes: [UInt8] = []
    /// Each field's name and value as offsets into `bytes`.
    private var fields: [(name: Range<Int>, value: Range<Int>)] = []

    /// Header names HTTP/2 forbids (RFC 9113 §8.2.2) or carries as a pseudo-header (`host`).
    static let connectionSpecific: [String] = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host",
    ]

    init(_ request: HTTPRequest, method: RequestMethod, endpoint: OriginEndpoint, isTLS: Bool) {
        bytes.reserveCapacity(256 + request.url.utf8.count)
        fields.reserveCapacity(5 + request.headers.count)
        append(":method", request.method)
        append(":scheme", isTLS ? "https" : "http")
        append(":authority", endpoint.authority)
        append(":path", RequestOrigin.path(of: request.url))
        var hasLength = false
        for header in request.headers {
            if Self.connectionSpecific.contains(where: { header.hasName($0) }) { continue }
            if header.hasName("te") && !header.value.utf8.elementsEqualIgnoringASCIICase("trailers".utf8) { continue }
            hasLength = hasLength || header.hasName("content-length")
            append(header.name, header.value, lowercasingName: true)
        }
        if case .withBody = method, !hasLength { append("content-length", String(request.body.count)) }
    }

    private mutating func append(_ name: String, _ value: String, lowercasingName: Bool = false) {
        let nameStart = bytes.count
        if lowercasingName {
            bytes.append(contentsOf: name.utf8.lazy.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 })
        } else {
            bytes.append(contentsOf: name.utf8)
        }
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        fields.append((nameStart..<valueStart, valueStart..<bytes.count))
    }

    /// The fields in order as `name: value` lines (tests and diagnostics).
    var lines: [String] {
        fields.map {
            String(decoding: bytes[$0.name], as: UTF8.self) + ": " + String(decoding: bytes[$0.value], as: UTF8.self)
        }
    }

    /// Calls `body` with the fields as `nghttp2_nv` entries, valid only during the call (nghttp2 copies them).
    func withFields<Result>(_ body: (UnsafeBufferPointer<nghttp2_nv>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { bytes in
            let base = UnsafeMutablePointer(mutating: bytes.baseAddress)
            let entries = fields.map { field in
                nghttp2_nv(
                    name: base.map { $0 + field.name.lowerBound }, value: base.map { $0 + field.value.lowerBound },
                    namelen: field.name.count, valuelen: field.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return entries.withUnsafeBufferPointer(body)
        }
    }
}
