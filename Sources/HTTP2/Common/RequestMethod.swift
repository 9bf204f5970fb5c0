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
        let breaksLine: (UInt8) -> Bool = { $0 == 0x0A || $0 == 0x0D || $0 == 0 }
        for header in request.headers {
            let badName = header.name.utf8.contains { breaksLine($0) || $0 == UInt8(ascii: ":") || $0 == 0x20 }
            guard !header.name.isEmpty, !badName, !header.value.utf8.contains(where: breaksLine) else { return nil }
        }
        switch method {
        case "GET" where request.body.isEmpty: self = .get
        case "HEAD": self = .head
        case "POST": self = .withBody(custom: nil)
        default: self = .withBody(custom: method)
        }
    }
}
