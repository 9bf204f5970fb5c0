import Essentials
import HTTPTypes

/// How a valid request's method and body are expressed to libcurl.
enum RequestMethod: Equatable {
    case get
    case head
    /// A request with a body (possibly empty); the method name to send unless it is POST.
    case withBody(custom: String?)

    /// Nil if the method is not an upper-case token or a header could split a line (header injection).
    init?(validating request: HTTPRequest) {
        let method = request.method
        guard !method.isEmpty, method.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            return nil
        }
        for header in request.headers {
            guard !header.name.isEmpty, !Self.has(Self.breaksName, in: header.name),
                !Self.has(Self.breaksLine, in: header.value)
            else { return nil }
        }
        switch method {
        case "GET" where request.body.isEmpty: self = .get
        case "HEAD": self = .head
        case "POST": self = .withBody(custom: nil)
        default: self = .withBody(custom: method)
        }
    }

    /// A byte that would split a header line: LF, CR or NUL.
    private static func breaksLine(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D || byte == 0 }

    /// A byte no header name may have: one that splits a line, a colon or a space.
    private static func breaksName(_ byte: UInt8) -> Bool {
        breaksLine(byte) || byte == UInt8(ascii: ":") || byte == 0x20
    }

    /// Whether any byte of `text` is `bad`. Every header of every request is read: over the bytes in place, without
    /// an early exit, so the loop vectorizes (a bearer token is most of a request's header bytes).
    private static func has(_ bad: (UInt8) -> Bool, in text: String) -> Bool {
        text.withUTF8Bytes { bytes in
            var found: UInt8 = 0
            for byte in bytes { found |= bad(byte) ? 1 : 0 }
            return found != 0
        }
    }
}
