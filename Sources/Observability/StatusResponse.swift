/// A complete HTTP/1.1 response of the status endpoints; the connection is closed after it.
struct StatusResponse: Equatable {
    var status: Int
    var reason: String
    var contentType: String = "text/plain; charset=utf-8"
    var extraHeaders: [(String, String)] = []
    var body: String
    /// HEAD requests get the headers with the body's length but no body.
    var omitsBody = false

    static func == (lhs: StatusResponse, rhs: StatusResponse) -> Bool {
        lhs.status == rhs.status && lhs.reason == rhs.reason && lhs.contentType == rhs.contentType
            && lhs.extraHeaders.elementsEqual(rhs.extraHeaders, by: ==) && lhs.body == rhs.body
            && lhs.omitsBody == rhs.omitsBody
    }

    /// The bytes on the wire.
    func serialized() -> [UInt8] {
        let bodyBytes = Array(body.utf8)
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        head += "Content-Type: \(contentType)\r\n"
        head += "Content-Length: \(bodyBytes.count)\r\n"
        head += "Cache-Control: no-store\r\n"
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + (omitsBody ? [] : bodyBytes)
    }
}
