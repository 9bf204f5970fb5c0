/// The parts of an HTTP/1.1 request head that the status endpoints look at.
struct StatusRequest: Equatable {
    var method: String
    /// The request target without its query string.
    var path: String

    /// Why a request head cannot be answered normally.
    enum ParseError: Error, Equatable {
        /// The head is not complete yet (no blank line).
        case incomplete
        /// The request line is not `METHOD SP TARGET SP HTTP/1.x`.
        case malformed
    }

    /// Parses the request line of a head that ends with an empty line (`\r\n\r\n`, or `\n\n` from lenient clients).
    static func parse(_ bytes: some Collection<UInt8>) throws(ParseError) -> StatusRequest {
        let head = Array(bytes)
        guard headEnd(in: head) != nil else { throw .incomplete }
        guard let lineEnd = head.firstIndex(of: UInt8(ascii: "\n")) else { throw .malformed }
        var line = head[..<lineEnd]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)), !parts[0].isEmpty,
            parts[0].allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }),
            parts[1].first == UInt8(ascii: "/")
        else { throw .malformed }
        let target = parts[1]
        let path = target.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target
        return StatusRequest(
            method: String(decoding: parts[0], as: UTF8.self), path: String(decoding: path, as: UTF8.self))
    }

    /// The index just past the blank line that ends the head, if the head is complete.
    static func headEnd(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"),
                    bytes[index + 2] == UInt8(ascii: "\n")
                {
                    return index + 3
                }
            }
            index += 1
        }
        return nil
    }
}
